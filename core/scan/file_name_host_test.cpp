#include "core/scan/file_name_host.hpp"

#include <catch2/catch.hpp>

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
  CHECK(host_from_file_name("logs/porter-dmesg.txt", none) == "porter");
  CHECK(host_from_file_name("logs/dmesg-node12.txt", none) == "node12");
  CHECK(host_from_file_name("x/atl1-1-03-007-29-0.log", none) == "atl1-1-03-007-29-0");
  CHECK(host_from_file_name("x/syslog_gpu-a-07_2025-03-14.log", none) == "gpu-a-07");
  CHECK(host_from_file_name("x/ssh-jean-zay-iam06.txt", none) == "jean-zay-iam06");
  CHECK(host_from_file_name("x/node12-dmesg-2.log", none) == "node12");
  CHECK(host_from_file_name("x/ip-10-0-0-7.log", none) == "ip-10-0-0-7");
  // A program's or the GPU operator's container's log is not a machine's, whatever log kind it peels to.
  CHECK(host_from_file_name("logs/nvidia-driver-ctr.log", none) == "");
  CHECK(host_from_file_name("logs/nvidia-container-toolkit.log", none) == "");
  CHECK(host_from_file_name("logs/dcgm-exporter.log", none) == "");
  CHECK(host_from_file_name("logs/nvidia-smi-node12.txt", none) == "node12");
  CHECK(host_from_file_name("x/dmesg_node-21_20261201.log", none) == "node-21");
  CHECK(host_from_file_name("x/host-3-kern.log", none) == "host-3");
  // "gpu" and a number is a machine unless it reads as a GPU's index (below 16, no leading zero).
  CHECK(host_from_file_name("x/dmesg-gpu042.txt", none) == "gpu042");
  CHECK(host_from_file_name("x/gpu01.log", none) == "gpu01");
  CHECK(host_from_file_name("x/gpu3.log", none).empty());
  CHECK(host_from_file_name("x/dmesg-gpu-node-5.txt", none) == "gpu-node-5");
  CHECK(host_from_file_name("x/worker-3.log", none) == "worker-3");
  CHECK(host_from_file_name("x/debug_node12.log", none) == "node12");  // a machine's word with its number
  CHECK(host_from_file_name("x/worker3.log", none) == "worker3");
  CHECK(host_from_file_name("x/attempt-1.log", none).empty());  // a retry's counter, not a machine
  CHECK(host_from_file_name("x/train_step-100.log", none).empty());
  CHECK(host_from_file_name("x/dmesg-e3sm.txt", none) == "e3sm");  // a log kind beside it: a machine
  // ... unless the word says what happened while the log was taken, not where.
  CHECK(host_from_file_name("x/console-attach.log", none).empty());
  CHECK(host_from_file_name("x/dmesg-boot.txt", none).empty());
  CHECK(host_from_file_name("x/kern-crash.log", none).empty());
  CHECK(host_from_file_name("x/dmesg-karm.txt", none) == "karm");
  CHECK(host_from_file_name("x/dmesg-kovacs-driver-install.txt", none) == "kovacs");
  CHECK(host_from_file_name("x/dmesg-gpu-node-5-boot.txt", none) == "gpu-node-5");
  CHECK(host_from_file_name("x/c122-021.log", none) == "c122-021");
  CHECK(host_from_file_name("x/x3014c0s19b0n0.log", none) == "x3014c0s19b0n0");
  CHECK(host_from_file_name("x/gpu-3.log", none).empty());
  CHECK(host_from_file_name("x/gpu-node.log", none).empty());
  // An address or a domain name is a machine whole.
  CHECK(host_from_file_name("x/10.0.0.5.log", none) == "10.0.0.5");
  CHECK(host_from_file_name("x/dmesg-HGX-H100-15.txt", none) == "HGX-H100-15");  // as the machine spells itself
  CHECK(host_from_file_name("x/dmesg_10.0.0.5.txt", none) == "10.0.0.5");
  CHECK(host_from_file_name("x/ip-10-0-0-5.ec2.internal.log", none) == "ip-10-0-0-5");
  CHECK(host_from_file_name("x/gpu7.cluster.local.log", none) == "gpu7");
  CHECK(host_from_file_name("x/torch-2.1.0.1.log", none).empty());
  CHECK(host_from_file_name("x/10.0.0.5_to_10.0.0.6.log", none).empty());  // two: no guess
  CHECK(host_from_file_name("x/dmesg-10.0.3.17.txt", none) == "10.0.3.17");
  CHECK(host_from_file_name("x/kern-gpu-7.log", none) == "gpu-7");  // beside a machine's own log: a machine
  CHECK(host_from_file_name("x/nvidia-bug-report_gpu-node-3_2024-03-14.log", none) == "gpu-node-3");
  for (const char* not_host : {"pasted.log", "pasted-1.log", "train.log", "worker.log", "slurm-12345.out", "rank-3.log",
                               "rank3.log", "nccl-debug-init.log", "pie-driver.log", "messages-excerpt-1.txt",
                               "kubectl-get-pods.txt", "grep-net_ib.txt", "main_log.txt", "llama3-70b.log",
                               "barrier-count.txt", "2025-03-14.log", "nvidia-smi-query.txt", "fi_log_debug.txt",
                               "e3sm.log", "t5xxl.log", "qwen2.5-7b.log", "train_llama3.log", "gpt2.log",
                               "resnet50.log", "yolov5_run2.log", "overlap.30.out-30", "gemini_logs.log",
                               "pasted-aocc.log", "train_llama-3.1-8b.log", "run_cuda-12.1.log", "ib0-errors.txt",
                               "eth1.log", "mlx5_0-counters.txt", "debug_output2.log", "trainer1.log", "test3.out",
                               "stderr2.txt", "kernel-crash1-gpu_burn.log", "kernel-crash2-vllm.log"})
    CHECK(host_from_file_name(std::string("x/") + not_host, none).empty());
  std::set<std::string> nodes{"node03", "node12"};
  CHECK(host_from_file_name("x/kern_node03_2025.log", nodes) == "node03");
  CHECK(host_from_file_name("x/dmesg-HGX-H100-11.txt", {"HGX-H100-11", "HGX-H100-12"}) == "HGX-H100-11");
  CHECK(host_from_file_name("x/node033.log", nodes).empty());
  CHECK(host_from_file_name("x/train.log", nodes).empty());
}
