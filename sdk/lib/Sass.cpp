//===- Sass.cpp - SASS parser (placeholder) -------------------------------===//
#include "gestell/Sass.h"
#include "gestell/Error.h"

namespace gestell {
llvm::Expected<std::unique_ptr<SassModule>> parseSass(llvm::StringRef Path) {
  return inputError(Path, "SASS parsing is not available in this build");
}
} // namespace gestell
