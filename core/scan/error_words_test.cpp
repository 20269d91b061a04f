#include "core/scan/error_words.hpp"

#include <catch2/catch.hpp>

using attribution::looks_like_error;

TEST_CASE("error words: lines a person reads as errors", "[error_words]") {
  for (std::string_view line : {
      "srun: error: Unable to create step for job 42: Invalid generic resource",
      "├─▶ Failed to acquire lock on the distribution cache",
      "Timeout (300s) when waiting for lock on `/uv/cache/sdists-v9/.lock`",
      "FATAL: could not open /dev/nvidia0",
      "ValueError: No available memory for the cache blocks.",
      "zmq.error.ZMQError: Address already in use (addr='tcp://10.65.1.9:7000')",
      "Exception in thread \"main\" java.io.IOException",
      "timed out after waiting 10m0s for synchronized replica start",
      "/usr/bin/python: No such file or directory",
      "[rank3]: Segmentation fault (core dumped)",
      "connect() to 10.0.0.7:29500 refused",
      "SIGSEGV - Segmentation violation in procedure ncmpiio_open",
      "Bus error (core dumped)",
      "            Summary                       : Unhealthy",
      // a 0 that numbers the subject is no count of none
      "rank 0 failed to save checkpoint",
      "GPU 0 error while copying",
      "Exception: gradient norm exploded",
      "thread 'main' panicked at src/main.rs:4:5",
      "terminate called after throwing an instance of 'std::bad_alloc'",
      "OSError: [Errno 28] No space left on device",
       }) {
    INFO(line);
    CHECK(looks_like_error(line));
  }
}

TEST_CASE("error words: counts of none, identifiers and traceback context are not errors", "[error_words]") {
  for (std::string_view line : {
      "",
      "iteration 100 | loss 2.31 | number of nan iterations: 0",
      "validation finished with 0 errors",
      "Compiled without error in 3.2s",
      "no error reported by the driver",
      "errors: 0, warnings: 2",
      "export NCCL_ERROR_FILE=/tmp/nccl.err",
      "train/error_rate=0.12",
      "Traceback (most recent call last):",
      "  File \"/opt/app/train.py\", line 12, in <module>",
      "    ^^^^^^^^^^^^^^^^^^^",
      "frame #3: c10::cuda::ExchangeDevice(int) + 0x62",
      // an exception class's name inside an identifier or a word is not its raise
      "from torch.errors import ErrorCodes",
      "class RetryableErrorHandler:",
      // logged at a quiet level, or a dump's value of none
      "node1:2345:2345 [0] NCCL INFO NET/IB : Unable to open device mlx5_0",
      "2024-05-01 10:00:00 | INFO | loader: cache not found, building",
      "I1207 09:15:07.980798 7 client.cpp:288] retry failed once, trying again",
      "{\"errors\": 0, \"warnings\": 3}",
      "'error': None, 'status': 'ok'",
      "5 passed, 0 failed in 3.21s",
      "Exception raised from c10_cuda_check_implementation at CUDAException.cpp:44",
      "    except ValueError:",
       }) {
    INFO(line);
    CHECK_FALSE(looks_like_error(line));
  }
}
