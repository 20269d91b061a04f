#include "core/scan/error_words.hpp"

#include <catch2/catch.hpp>

using attribution::looks_like_error;

TEST_CASE("error words: lines a person reads as errors", "[error_words]") {
  CHECK(looks_like_error("srun: error: Unable to create step for job 42: Invalid generic resource"));
  CHECK(looks_like_error("├─▶ Failed to acquire lock on the distribution cache"));
  CHECK(looks_like_error("Timeout (300s) when waiting for lock on `/uv/cache/sdists-v9/.lock`"));
  CHECK(looks_like_error("FATAL: could not open /dev/nvidia0"));
  CHECK(looks_like_error("ValueError: No available memory for the cache blocks."));
  CHECK(looks_like_error("zmq.error.ZMQError: Address already in use (addr='tcp://10.65.1.9:7000')"));
  CHECK(looks_like_error("Exception in thread \"main\" java.io.IOException"));
  CHECK(looks_like_error("timed out after waiting 10m0s for synchronized replica start"));
  CHECK(looks_like_error("/usr/bin/python: No such file or directory"));
  CHECK(looks_like_error("[rank3]: Segmentation fault (core dumped)"));
  CHECK(looks_like_error("connect() to 10.0.0.7:29500 refused"));
  CHECK(looks_like_error("SIGSEGV - Segmentation violation in procedure ncmpiio_open"));
  CHECK(looks_like_error("Bus error (core dumped)"));
  CHECK(looks_like_error("            Summary                       : Unhealthy"));
  // a 0 that numbers the subject is no count of none
  CHECK(looks_like_error("rank 0 failed to save checkpoint"));
  CHECK(looks_like_error("GPU 0 error while copying"));
  CHECK(looks_like_error("Exception: gradient norm exploded"));
  CHECK(looks_like_error("thread 'main' panicked at src/main.rs:4:5"));
  CHECK(looks_like_error("terminate called after throwing an instance of 'std::bad_alloc'"));
  CHECK(looks_like_error("OSError: [Errno 28] No space left on device"));
}

TEST_CASE("error words: counts of none, identifiers and traceback context are not errors", "[error_words]") {
  CHECK_FALSE(looks_like_error(""));
  CHECK_FALSE(looks_like_error("iteration 100 | loss 2.31 | number of nan iterations: 0"));
  CHECK_FALSE(looks_like_error("validation finished with 0 errors"));
  CHECK_FALSE(looks_like_error("Compiled without error in 3.2s"));
  CHECK_FALSE(looks_like_error("no error reported by the driver"));
  CHECK_FALSE(looks_like_error("errors: 0, warnings: 2"));
  CHECK_FALSE(looks_like_error("export NCCL_ERROR_FILE=/tmp/nccl.err"));
  CHECK_FALSE(looks_like_error("train/error_rate=0.12"));
  CHECK_FALSE(looks_like_error("Traceback (most recent call last):"));
  CHECK_FALSE(looks_like_error("  File \"/opt/app/train.py\", line 12, in <module>"));
  CHECK_FALSE(looks_like_error("    ^^^^^^^^^^^^^^^^^^^"));
  CHECK_FALSE(looks_like_error("frame #3: c10::cuda::ExchangeDevice(int) + 0x62"));
  // an exception class's name inside an identifier or a word is not its raise
  CHECK_FALSE(looks_like_error("from torch.errors import ErrorCodes"));
  CHECK_FALSE(looks_like_error("class RetryableErrorHandler:"));
  // logged at a quiet level, or a dump's value of none
  CHECK_FALSE(looks_like_error("node1:2345:2345 [0] NCCL INFO NET/IB : Unable to open device mlx5_0"));
  CHECK_FALSE(looks_like_error("2024-05-01 10:00:00 | INFO | loader: cache not found, building"));
  CHECK_FALSE(looks_like_error("I1207 09:15:07.980798 7 client.cpp:288] retry failed once, trying again"));
  CHECK_FALSE(looks_like_error("{\"errors\": 0, \"warnings\": 3}"));
  CHECK_FALSE(looks_like_error("'error': None, 'status': 'ok'"));
  CHECK_FALSE(looks_like_error("5 passed, 0 failed in 3.21s"));
  CHECK_FALSE(looks_like_error("Exception raised from c10_cuda_check_implementation at CUDAException.cpp:44"));
  CHECK_FALSE(looks_like_error("    except ValueError:"));
}
