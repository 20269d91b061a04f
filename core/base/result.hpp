#pragma once
// Library code reports failures as values; only cli/ turns them into messages and exit codes.
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace attribution {

enum class ErrorKind { usage, config, rules, input, no_data, output };

struct Error {
  ErrorKind kind = ErrorKind::input;
  std::string message;  // what is wrong, without the location
  std::string file;     // file at fault, if any
  long line = 0;        // 1-based line in that file, 0 when unknown
  std::string key;      // config key or rule id at fault, if any
  std::string hint;     // what to do about it
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error make_error(ErrorKind kind, std::string message, std::string file = {}, long line = 0,
                        std::string key = {}, std::string hint = {}) {
  return Error{kind, std::move(message), std::move(file), line, std::move(key), std::move(hint)};
}

}  // namespace attribution

// Assigns a Result's value to `lhs`, or returns its error from the enclosing function.
#define ATTRIBUTION_TRY(lhs, expr)   \
  do {                               \
    auto _attribution_r = (expr);    \
    if (!_attribution_r) return _attribution_r.error(); \
    lhs = std::move(_attribution_r.value()); \
  } while (0)
