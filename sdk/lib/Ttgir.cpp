//===- Ttgir.cpp - TritonGPU IR parser (placeholder) ----------------------===//
// Replaced by the TTGIR issue's parser.
#include "gestell/Ttgir.h"
#include "gestell/Error.h"

namespace gestell {
llvm::Expected<std::unique_ptr<TtgirModule>> parseTtgir(llvm::StringRef Path) {
  return inputError(Path, "TTGIR parsing is not available in this build");
}
} // namespace gestell
