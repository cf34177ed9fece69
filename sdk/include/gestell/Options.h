//===- gestell/Options.h - Typed per-check options ------------------------===//
//
// Options come from the config file (`[check-options.<check-id>]`) and are
// read by a check in its constructor, the clang-tidy way:
//
//   Threshold(Options.get("Threshold", 64))
//
// and written back by Check::storeOptions() so that --dump-config shows every
// option with its effective value. A value of the wrong type is an error that
// names the config file, line and column; the check gets the default.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_OPTIONS_H
#define GESTELL_OPTIONS_H

#include "llvm/ADT/StringRef.h"

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gestell {

/// One option value, as TOML types it.
using OptionScalar = std::variant<bool, int64_t, double, std::string>;

/// A configured value and where it was set ("file:line:col" or "command
/// line"), for error messages and --explain-config.
struct OptionValue {
  OptionScalar Value;
  std::string Origin;
};

/// Key -> configured value, for one check.
using ConfiguredOptions = std::map<std::string, OptionValue, std::less<>>;
/// Key -> effective value, filled by Check::storeOptions.
using OptionMap = std::map<std::string, OptionScalar, std::less<>>;

/// The options of one check, as the check sees them.
class OptionsView {
public:
  /// Configured may be null (no options set). Type errors go to Errors.
  OptionsView(llvm::StringRef CheckId, const ConfiguredOptions *Configured,
              std::vector<std::string> *Errors);

  template <std::integral T>
  requires(!std::same_as<T, bool>) T get(llvm::StringRef Key, T Default)
  const {
    std::optional<int64_t> V = getInteger(Key, std::numeric_limits<T>::min(),
                                          std::numeric_limits<T>::max());
    return V ? static_cast<T>(*V) : Default;
  }
  bool get(llvm::StringRef Key, bool Default) const;
  double get(llvm::StringRef Key, double Default) const;
  std::string get(llvm::StringRef Key, const char *Default) const;
  std::string get(llvm::StringRef Key, llvm::StringRef Default) const;
  std::string get(llvm::StringRef Key, const std::string &Default) const {
    return get(Key, llvm::StringRef(Default));
  }

  /// Writes a value back (from storeOptions).
  template <std::integral T>
  requires(!std::same_as<T, bool>) void store(OptionMap &Opts,
                                              llvm::StringRef Key,
                                              T Value) const {
    Opts[Key.str()] = static_cast<int64_t>(Value);
  }
  void store(OptionMap &Opts, llvm::StringRef Key, bool Value) const;
  void store(OptionMap &Opts, llvm::StringRef Key, double Value) const;
  void store(OptionMap &Opts, llvm::StringRef Key, llvm::StringRef Value) const;
  void store(OptionMap &Opts, llvm::StringRef Key, const char *Value) const {
    store(Opts, Key, llvm::StringRef(Value));
  }
  void store(OptionMap &Opts, llvm::StringRef Key,
             const std::string &Value) const {
    store(Opts, Key, llvm::StringRef(Value));
  }

private:
  const OptionValue *find(llvm::StringRef Key) const;
  std::optional<int64_t> getInteger(llvm::StringRef Key, int64_t Min,
                                    uint64_t Max) const;
  void typeError(const OptionValue &V, llvm::StringRef Key,
                 llvm::StringRef Expected) const;

  std::string CheckId;
  const ConfiguredOptions *Configured;
  std::vector<std::string> *Errors;
};

/// "64", "true", "0.5", "\"text\"" (TOML spelling).
std::string formatOption(const OptionScalar &V);

} // namespace gestell

#endif
