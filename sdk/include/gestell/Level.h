//===- gestell/Level.h - How severe a finding or a notification is --------===//
#ifndef GESTELL_LEVEL_H
#define GESTELL_LEVEL_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace gestell {

/// Severity, in increasing order. SARIF spells Remark "note".
enum class Level : uint8_t { Remark, Warning, Error };

/// "remark", "warning", "error".
llvm::StringRef levelName(Level L);
std::optional<Level> levelFromName(llvm::StringRef Name);

} // namespace gestell

#endif
