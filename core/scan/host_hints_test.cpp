#include "core/scan/host_hints.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("section hosts: shell prompts, ssh, a pod's node") {
  CHECK(section_host("root@node1:~# dmesg -T | grep NVRM") == "node1");
  CHECK(section_host("(venv) root@node1:~/kubespray# nvidia-smi") == "node1");
  CHECK(section_host("kgk2@bock:~$ nvidia-smi") == "bock");
  CHECK(section_host("[root@skl-node-1 eris]# dmesg -T|grep -E -i -B100 'killed process'") == "skl-node-1");
  CHECK(section_host("core@paigcr-a-gpu-1013:~ $ dmesg  -T | grep oom -C 100") == "paigcr-a-gpu-1013");
  CHECK(section_host("ssh jean-zay-iam06") == "jean-zay-iam06");
  // A launcher's sentence that starts with "ssh" types no command (horovodrun's ssh check).
  CHECK_FALSE(section_host("ssh not successful for host node02:"));
  CHECK_FALSE(section_host("ssh to the node failed"));
  CHECK(section_host("Node:         gpu-node-3/10.0.0.3") == "gpu-node-3");
  // Every form the cheap pre-check must let through: a suse prompt, ssh after a prompt sign or a
  // tab, a bracketed prompt behind a venv.
  CHECK(section_host("gpu12:~ # dmesg | grep -i xid") == "gpu12");
  CHECK(section_host("zeyer@cn-234 ~ % nvidia-smi") == "cn-234");
  CHECK(section_host("alice@gpu-7 work $ dmesg") == "gpu-7");
  CHECK_FALSE(section_host("mail alice@example.com about it % now"));
  // The host alone, then its directory: Gentoo's root prompt, a zsh prompt "%m [%~] %#".
  CHECK(section_host("livecd ~ # mount /dev/sda1 /mnt/gentoo") == "livecd");
  CHECK(section_host("orm [~] % sudo /opt/areca/x86_64/cli64 disk info drv=13") == "orm");
  CHECK_FALSE(section_host("total [~] %"));          // no command after the sign
  CHECK_FALSE(section_host("value ~ 5 % of the run"));  // a sentence: no sign right after the directory
  CHECK_FALSE(section_host("Error [3] # retrying"));   // "Error" is no machine
  CHECK_FALSE(section_host("error [3] # retrying"));   // nor is "[3]" a directory
  CHECK(section_host("$ ssh node-b7") == "node-b7");
  CHECK(section_host("\t# ssh -p 22 admin@node-b8") == "node-b8");
  CHECK(section_host("(base) [ops@dgx-03 ~]$ nvidia-smi -q") == "dgx-03");
  // A command run on another machine from the prompt: its output is that machine's.
  CHECK(section_host("[me@login1 energy]$ ssh gpu-2-5 nvidia-smi") == "gpu-2-5");
  CHECK(section_host("root@HGX-H100-14:~# dmesg | grep Xid") == "HGX-H100-14");
  // head/tail's header before each file: the machine its path names.
  CHECK(section_host("==> logs/node17/dmesg.log <==") == "node17");
  CHECK(section_host("==> dmesg-gpu-node-5.txt <==") == "gpu-node-5");
  CHECK_FALSE(section_host("==> train.log <=="));
  CHECK_FALSE(section_host("==> not a header"));
  // scontrol show node: the block's first line names the node its State= and Reason= lines are about.
  CHECK(section_host("NodeName=gpu-7 Arch=x86_64 CoresPerSocket=32") == "gpu-7");
  CHECK(section_host("NodeName=gpu-7") == "gpu-7");
  CHECK(section_host("    NodeName=node02 Arch=x86_64 CoresPerSocket=8") == "node02");  // a paste indents it too
  CHECK_FALSE(section_host("NodeName=gpu[1-8] CPUs=64"));  // slurm.conf's node range: no one machine
  CHECK(section_host("$ ssh DGX-A100-03 nvidia-smi") == "DGX-A100-03");
  CHECK(section_host("me@login1:~$ ssh -t -p 2222 admin@gpu-53 sudo dmesg") == "gpu-53");
  CHECK(section_host("$ ssh -o StrictHostKeyChecking=no node7 'dmesg | grep Xid'") == "node7");
  CHECK(section_host("[me@login1 ~]$ srun -N1 -w gpu-54 nvidia-smi -q") == "gpu-54");
  CHECK(section_host("$ srun --nodelist=gpu-56 --pty dmesg") == "gpu-56");
  CHECK(section_host("$ kubectl debug node/gpu-55 -it --image=ubuntu -- chroot /host dmesg") == "gpu-55");
  // srun without one named machine runs somewhere in the allocation: not on the prompt's login node,
  // on no machine known (the section's lines take their own prefixes, or none).
  CHECK(section_host("[me@login1 ~]$ srun -w gpu-[1-4] hostname") == std::string_view());
  CHECK(section_host("[me@login1 ~]$ srun python train.py") == std::string_view());
  CHECK(section_host("[arnoldg@dt-login04 bin]$ time srun ./trap.sh") == std::string_view());
  CHECK(section_host("$ time srun -N 2 -w gpu-7 ./x") == "gpu-7");
  // sbatch and salloc send the job to the machine they name; without one, they answer from the prompt's.
  CHECK(section_host("$ sbatch --exclusive -N1 -w gpu-node-214 --gres=gpu:8 --wrap 'sleep 20'") == "gpu-node-214");
  CHECK(section_host("[me@login1 ~]$ salloc --nodelist=gpu-57 -N1") == "gpu-57");
  CHECK(section_host("[me@login1 ~]$ sbatch train.sh") == "login1");
  // A launcher called by its path.
  CHECK(section_host("$ /bin/srun -N 1 --nodelist=c204-015 hostname") == "c204-015");
  CHECK(section_host("$ /usr/bin/srun python t.py") == std::string_view());
  // From a Windows terminal: the ssh target, never the laptop.
  CHECK(section_host("PS C:\\Users\\me> ssh admin@gpu-node-49 dmesg") == "gpu-node-49");
  CHECK_FALSE(section_host("copied to C:\\Users\\me> then ssh gpu-node-52 nvidia-smi"));  // a path in a sentence
  CHECK(section_host("C:\\Users\\me> ssh gpu-node-53 nvidia-smi") == "gpu-node-53");
  CHECK_FALSE(section_host("PS C:\\Users\\me> dir"));
  CHECK(section_host("C:\\Users\\me>ssh root@10.0.3.17 dmesg") == "10.0.3.17");  // cmd.exe: no blank after '>'
  CHECK_FALSE(section_host("C:\\Users\\me>dir"));
  CHECK(section_host("$ NCCL_DEBUG=INFO srun --nodelist=gpu-8 python t.py") == "gpu-8");
  // Parallel shells' and hand-made per-host headers.
  CHECK(section_host("gpu-node-3:") == "gpu-node-3");
  CHECK(section_host("gpu-node-3 | FAILED | rc=1 >>") == "gpu-node-3");
  CHECK(section_host("10.0.3.17 | UNREACHABLE! => {") == "10.0.3.17");
  CHECK(section_host("[1] 10:41:07 [FAILURE] gpu-node-4 Exited with error code 1") == "gpu-node-4");
  CHECK_FALSE(section_host("Traceback (most recent call last):"));
  CHECK_FALSE(section_host("Output:"));
  CHECK_FALSE(section_host("e.g.:"));
  CHECK_FALSE(section_host("rank-3:"));
  CHECK_FALSE(section_host("node-xx:"));  // redacted
  CHECK_FALSE(section_host("gpu-operator:"));  // a YAML key
  CHECK_FALSE(section_host("ipv4:"));
  CHECK(section_host("10.0.3.17:") == "10.0.3.17");
  CHECK_FALSE(section_host("| col | FAILED |"));
  CHECK_FALSE(section_host("srun: error: gpu-3: task 0: Exited with exit code 1"));
  CHECK_FALSE(section_host("ran it as ops@dgx-03:~$ later"));
  CHECK_FALSE(section_host("sshd[812]: Accepted publickey for ops"));
  CHECK_FALSE(section_host("user@example.com wrote:"));
  CHECK_FALSE(section_host("[E ProcessGroupNCCL.cpp:587] [Rank 2] Watchdog caught collective operation timeout"));
  CHECK_FALSE(section_host("Mar 14 09:41:07 node03 kernel: NVRM: Xid 74"));
}

TEST_CASE("a loop's banner or a key and a host alone on a line open that host's section") {
  CHECK(section_host("=== gpu-node-48 ===") == "gpu-node-48");
  CHECK(section_host("----- gpu-node-49 -----") == "gpu-node-49");
  CHECK(section_host("##### gpu-node-50") == "gpu-node-50");
  CHECK(section_host("*** 10.0.3.17 ***") == "10.0.3.17");
  CHECK(section_host("host: gpu-node-46") == "gpu-node-46");
  CHECK(section_host("Hostname: gpu-node-47") == "gpu-node-47");
  CHECK(section_host("node = gpu-node-51") == "gpu-node-51");
  // Not banners of machines: a rule, a heading with words, counters, a word without a machine's digits,
  // a value after another key, a redacted name.
  CHECK_FALSE(section_host("---"));
  CHECK_FALSE(section_host("### Step 3"));
  CHECK_FALSE(section_host("=== epoch3 ==="));
  CHECK_FALSE(section_host("=== rank0 ==="));
  CHECK_FALSE(section_host("=== summary ==="));
  CHECK_FALSE(section_host("host: api.example.com:443"));
  CHECK_FALSE(section_host("port: 29500"));
  CHECK_FALSE(section_host("=== node-xx ==="));
  CHECK_FALSE(section_host("-- gpu-node-3"));  // two dashes: a comment or a diff, not a frame
}

TEST_CASE("declared hosts: the kernel's and systemd's record of the hostname") {
  CHECK(declared_host("[Wed Mar  1 17:44:52 2023] systemd[1]: Set hostname to <jean-zay-iam06>.") == "jean-zay-iam06");
  CHECK(declared_host("[    0.000000] Command line: vmlinuz ro NODE_ID=service98 HOSTNAME=jean-zay-iam06 SLOT=1") ==
        "jean-zay-iam06");
  CHECK(declared_host("   Static hostname: gpu-a-07") == "gpu-a-07");
  CHECK(declared_host("  Hostname:    gpu-node-1") == "gpu-node-1");  // kubectl describe node
  CHECK(declared_host("   host name:  urmel") == "urmel");  // smartd's warning mail
  CHECK(declared_host("    Runner name: 'worker-rocm-amd-38'") == "worker-rocm-amd-38");  // a forum's code block
  CHECK_FALSE(declared_host("the host name:  urmel"));
  CHECK_FALSE(declared_host("Hostname: gpu-node-1 (up 3 days)"));
  CHECK(declared_host("Machine name: 'jenkins-worker-rocm-amd-98'") == "jenkins-worker-rocm-amd-98");
  CHECK_FALSE(declared_host("Machine name: 'worker-[3](https://x)8'"));
  CHECK(declared_host("2024-05-01T12:00:03.1234567Z Machine name: 'gpu-runner-7'") == "gpu-runner-7");
  CHECK(declared_host("Runner name: 'worker-rocm-amd-34'") == "worker-rocm-amd-34");
  CHECK_FALSE(declared_host("Runner name: 'GitHub Actions 2'"));  // a hosted runner: no machine
  CHECK_FALSE(declared_host("systemd[1]: Set hostname to <localhost>."));
  CHECK_FALSE(declared_host("export HOSTNAME_SUFFIX=x"));
}

TEST_CASE("a file's declared host: the first key in rank order whose line names a host") {
  // HOSTNAME= comes first in the file, but systemd's record ranks first; a key whose line names
  // no host (localhost) gives way to the next.
  std::string text = "[    0.000000] Command line: ro HOSTNAME=from-cmdline\nnoise line\n"
                     "systemd[1]: Set hostname to <localhost>.\n[    2.1] systemd[1]: Set hostname to <gpu-b-12>.\n";
  size_t where = 0;
  FileHosts a(text);
  CHECK(a.declared(&where) == "from-cmdline");  // the first "Set hostname" line says localhost
  CHECK(where == 0);
  std::string ranked = "HOSTNAME=node-a\n" + std::string(5000, 'x') + "\nsystemd[1]: Set hostname to <node-b>.\n";
  FileHosts b(ranked);
  CHECK(b.declared(&where) == "node-b");
  CHECK(where == ranked.find("systemd"));
  FileHosts none("Static hostnames: none here\nSet hostname to\n");
  CHECK(none.declared(&where).empty());
}

TEST_CASE("a file's declared host: smartd's warning mail names the machine in its header") {
  std::string mail = "This message was generated by the smartd daemon running on:\n\n   host name:  urmel\n"
                     "   DNS domain: openstreetmap.org\n\nDevice: /dev/sg1 [cciss_disk_00] [SCSI], SMART Failure: X\n";
  size_t where = 0;
  FileHosts m(mail);
  CHECK(m.declared(&where) == "urmel");
  CHECK(where == mail.find("   host name:"));
}

TEST_CASE("a file's section host at each line: the last section line above it, found by byte search") {
  // Lines full of ':' and words that are not prompts between the section lines; one query goes
  // back (a fresh look-back), and the keys' cached positions must not leak across it.
  std::string buf;
  std::vector<size_t> starts;
  auto add = [&](const std::string& l) {
    starts.push_back(buf.size());
    buf += l + "\n";
  };
  add("node0003:100017:100017 [1] NCCL INFO Broadcast: opCount 29");  // 0: before any section
  add("admin@gpu-a-01:~$ dmesg | tail");                              // 1
  add("[ 12.3] NVRM: Xid 79 email admin@ example");                   // 2: '@' but not a prompt
  add("Node:         gpu-b-02/10.0.0.7");                               // 3
  add("x: ~ not a suse prompt, ssh is just a word");                  // 4
  add("$ ssh gpu-c-03");                                              // 5
  add("NCCL INFO done");                                              // 6
  FileHosts h(buf);
  size_t where = 0;
  CHECK(h.section_at(starts[0], &where).empty());
  CHECK(h.section_at(starts[2], &where) == "gpu-a-01");
  CHECK(where == starts[1]);
  CHECK(h.section_at(starts[4], &where) == "gpu-b-02");
  CHECK(h.section_at(starts[6], &where) == "gpu-c-03");
  CHECK(where == starts[5]);
  CHECK(h.section_at(starts[3], &where) == "gpu-b-02");  // the line itself opens the section
  CHECK(h.section_at(starts[2], &where) == "gpu-a-01");  // back again
  CHECK(h.section_at(starts[6], &where) == "gpu-c-03");
}

TEST_CASE("parallel shells' per-host headers open sections in a file") {
  const std::string buf =
      "[1] 10:41:07 [FAILURE] gpu-node-65 Exited with error code 1\n[12345.678] NVRM: Xid 79\n"
      "gpu-node-66 | FAILED | rc=1 >>\n[12345.679] NVRM: Xid 79\n"
      "gpu-node-67:\n[12345.680] NVRM: Xid 79\n";
  FileHosts h(buf);
  size_t second = buf.find("[12345.678]"), fourth = buf.find("[12345.679]"), sixth = buf.find("[12345.680]");
  CHECK(h.section_at(second, nullptr) == "gpu-node-65");
  CHECK(h.section_at(fourth, nullptr) == "gpu-node-66");
  CHECK(h.section_at(sixth, nullptr) == "gpu-node-67");
}

TEST_CASE("a prompt of the host alone opens a section in a file") {
  const std::string buf = "orm [~] % sudo cli64 disk info drv=13\nDevice State : FAILED\n"
                          "livecd ~ # dmesg | tail\n[  12.3] md/raid1:md0: Disk failure on sdb1\n";
  FileHosts h(buf);
  CHECK(h.section_at(buf.find("Device State"), nullptr) == "orm");
  CHECK(h.section_at(buf.find("[  12.3]"), nullptr) == "livecd");
}

TEST_CASE("a declared host and a prompt behind a launcher's label, a viewer's column or a quote") {
  size_t at = 0;
  FileHosts labelled("0: === header ===\n3:    host name:  urmel\n3: SMART error\n");
  CHECK(labelled.declared(&at) == "urmel");
  FileHosts runner("2024-05-01T12:00:00.1234567Z Runner name: 'worker-rocm-amd-34'\n2024-05-01T12:00:01.0000000Z df: no space\n");
  CHECK(runner.declared(&at) == "worker-rocm-amd-34");
  // Behind a CI runner's stamp, which a syslog reader would take for a host and a tag ("host name:").
  FileHosts stamped("2024-05-01T12:00:00.1234567Z    host name:  urmel\n2024-05-01T12:00:01.1234567Z SMART error\n");
  CHECK(stamped.declared(&at) == "urmel");
  FileHosts described("2024-05-01T12:00:00.1234567Z Name:  gpu-node-1\n2024-05-01T12:00:01.1234567Z   Hostname:    gpu-node-1\n");
  CHECK(described.declared(&at) == "gpu-node-1");
  const std::string prompts = "trainer-1  | ubuntu@gpu-node-7:~$ dmesg | tail\ntrainer-1  | NVRM: Xid 79\n> root@gpu-node-8:~# nvidia-smi\n> ERR!\n";
  FileHosts sections(prompts);
  CHECK(sections.section_at(prompts.find("trainer-1  | NVRM"), &at) == "gpu-node-7");
  CHECK(sections.section_at(prompts.find("> ERR!"), &at) == "gpu-node-8");
}
