#include "core/scan/file_name_host.hpp"

#include <catch2/catch.hpp>
#include <utility>

using namespace attribution;

TEST_CASE("a --logs tree's subdirectory names a machine unless it counts or says what the logs are") {
  CHECK(directory_names_machine("node03"));
  CHECK(directory_names_machine("gpu-a-07"));
  CHECK(directory_names_machine("batch"));  // a word the tree's author chose: kept
  CHECK_FALSE(directory_names_machine("attempt_0"));  // torchrun --log-dir
  CHECK_FALSE(directory_names_machine("3"));
  CHECK_FALSE(directory_names_machine("output"));  // mpirun --output-filename
  CHECK_FALSE(directory_names_machine("logs"));
  CHECK_FALSE(directory_names_machine("rank7"));
}

TEST_CASE("hosts from file names in a flat directory") {
  // Slurm's output names with the job's number beside the node's.
  CHECK(host_from_file_name("logs/gpu-node-3-12345.out", {}) == "gpu-node-3");
  CHECK(host_from_file_name("logs/slurm-12345-gpu-node-9.out", {}) == "gpu-node-9");
  CHECK(host_from_file_name("logs/node-12345.log", {}) == "node-12345");
  CHECK(host_from_file_name("logs/slurm-12345.out", {}) == "");
  std::set<std::string> none;
  // Each file name and the machine it names ("" for none), without a node list.
  const std::pair<const char*, const char*> cases[] = {
      {"logs/porter-dmesg.txt", "porter"},
      {"logs/dmesg-node12.txt", "node12"},
      {"x/atl1-1-03-007-29-0.log", "atl1-1-03-007-29-0"},
      {"x/syslog_gpu-a-07_2025-03-14.log", "gpu-a-07"},
      {"x/ssh-jean-zay-iam06.txt", "jean-zay-iam06"},
      {"x/node12-dmesg-2.log", "node12"},
      {"x/ip-10-0-0-7.log", "ip-10-0-0-7"},
      // A program's or the GPU operator's container's log is not a machine's, whatever log kind it peels to.
      {"logs/nvidia-driver-ctr.log", ""},
      {"logs/nvidia-container-toolkit.log", ""},
      {"logs/dcgm-exporter.log", ""},
      {"logs/nvidia-smi-node12.txt", "node12"},
      {"x/dmesg_node-21_20261201.log", "node-21"},
      {"x/host-3-kern.log", "host-3"},
      // "gpu" and a number is a machine unless it reads as a GPU's index (below 16, no leading zero).
      {"x/dmesg-gpu042.txt", "gpu042"},
      {"x/gpu01.log", "gpu01"},
      {"x/gpu3.log", ""},
      {"x/dmesg-gpu-node-5.txt", "gpu-node-5"},
      {"x/worker-3.log", "worker-3"},
      {"x/debug_node12.log", "node12"},  // a machine's word with its number
      {"x/worker3.log", "worker3"},
      {"x/attempt-1.log", ""},  // a retry's counter, not a machine
      {"x/train_step-100.log", ""},
      {"x/dmesg-e3sm.txt", "e3sm"},  // a log kind beside it: a machine
      // ... unless the word says what happened while the log was taken, not where.
      {"x/console-attach.log", ""},
      {"x/dmesg-boot.txt", ""},
      {"x/kern-crash.log", ""},
      {"x/dmesg-karm.txt", "karm"},
      {"x/dmesg-kovacs-driver-install.txt", "kovacs"},
      {"x/dmesg-gpu-node-5-boot.txt", "gpu-node-5"},
      {"x/c122-021.log", "c122-021"},
      {"x/x3014c0s19b0n0.log", "x3014c0s19b0n0"},
      {"x/gpu-3.log", ""},
      {"x/gpu-node.log", ""},
      // An address or a domain name is a machine whole.
      {"x/10.0.0.5.log", "10.0.0.5"},
      {"x/dmesg-HGX-H100-15.txt", "HGX-H100-15"},  // as the machine spells itself
      {"x/dmesg_10.0.0.5.txt", "10.0.0.5"},
      {"x/ip-10-0-0-5.ec2.internal.log", "ip-10-0-0-5"},
      {"x/gpu7.cluster.local.log", "gpu7"},
      {"x/torch-2.1.0.1.log", ""},
      {"x/10.0.0.5_to_10.0.0.6.log", ""},  // two: no guess
      {"x/dmesg-10.0.3.17.txt", "10.0.3.17"},
      {"x/kern-gpu-7.log", "gpu-7"},  // beside a machine's own log: a machine
      {"x/nvidia-bug-report_gpu-node-3_2024-03-14.log", "gpu-node-3"},
      // named after the command that printed it: the pod or machine after the command's words
      {"x/kubectl-logs-imagenet-worker-0.log", "imagenet-worker-0"},
      {"x/kubectl-describe-pod-trainer-3.txt", "trainer-3"},
      {"x/kubectl-describe-node-gpu-node-3.txt", "gpu-node-3"},
      // without a verb after it, a tool's name may start a machine's; journalctl is a machine's log kind
      {"x/docker-host-3.log", "docker-host-3"},
      {"x/journalctl-karm.txt", "karm"},
      {"x/journalctl-gpu-7.txt", "gpu-7"},
  };
  for (const auto& [file, host] : cases) {
    INFO(file);
    CHECK(host_from_file_name(file, none) == host);
  }
  for (const char* not_host : {"pasted.log", "pasted-1.log", "train.log", "worker.log", "slurm-12345.out", "rank-3.log",
                               "rank3.log", "nccl-debug-init.log", "pie-driver.log", "messages-excerpt-1.txt",
                               "kubectl-get-pods.txt", "grep-net_ib.txt", "main_log.txt", "llama3-70b.log",
                               "barrier-count.txt", "2025-03-14.log", "nvidia-smi-query.txt", "fi_log_debug.txt",
                               "e3sm.log", "t5xxl.log", "qwen2.5-7b.log", "train_llama3.log", "gpt2.log",
                               "resnet50.log", "yolov5_run2.log", "overlap.30.out-30", "gemini_logs.log",
                               "pasted-aocc.log", "train_llama-3.1-8b.log", "run_cuda-12.1.log", "ib0-errors.txt",
                               "eth1.log", "mlx5_0-counters.txt", "debug_output2.log", "trainer1.log", "test3.out",
                               "stderr2.txt", "kernel-crash1-gpu_burn.log", "kernel-crash2-vllm.log", "kubectl-logs.txt",
                               "kubectl-describe-pod.txt"}) {
    INFO(not_host);
    CHECK(host_from_file_name(std::string("x/") + not_host, none).empty());
  }
  std::set<std::string> nodes{"node03", "node12"};
  CHECK(host_from_file_name("x/kern_node03_2025.log", nodes) == "node03");
  CHECK(host_from_file_name("x/dmesg-HGX-H100-11.txt", {"HGX-H100-11", "HGX-H100-12"}) == "HGX-H100-11");
  CHECK(host_from_file_name("x/node033.log", nodes).empty());
  CHECK(host_from_file_name("x/train.log", nodes).empty());
}
