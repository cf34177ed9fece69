//===- RulePackImpl.h - Rule pack internals shared by the SDK's files -----===//
#ifndef GESTELL_LIB_RULEPACKIMPL_H
#define GESTELL_LIB_RULEPACKIMPL_H

#include "gestell/RulePack.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace gestell {

/// "; did you mean 'X'?" for the closest of Known, or "" when none is close
/// enough to be a typo.
std::string suggest(llvm::StringRef Word,
                    llvm::ArrayRef<llvm::StringRef> Known);

/// The source text of a TOML string value, to find where a character of the
/// decoded value was written: basic ("...") and literal ('...') strings,
/// single- and multi-line, with escapes and line-ending backslashes.
class StringSource {
public:
  /// Start: where toml++ says the value begins (its opening quote).
  StringSource(llvm::StringRef FileText, PackPos Start);
  /// The position of the byte at DecodedOffset of the value (the closing
  /// quote for the end of the value).
  PackPos at(size_t DecodedOffset) const;

private:
  void advance(size_t N);
  llvm::StringRef Raw; ///< from the current position to the end of file
  unsigned Line = 1, Column = 1;
  bool Basic = true, Multi = false, Valid = true;
};

} // namespace gestell

#endif
