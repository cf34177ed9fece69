//===- Ptx.cpp - PTX parser (placeholder) ---------------------------------===//
#include "gestell/Ptx.h"
#include "gestell/Error.h"

namespace gestell {
llvm::Expected<std::unique_ptr<PtxModule>> parsePtx(llvm::StringRef Path) {
  return inputError(Path, "PTX parsing is not available in this build");
}
} // namespace gestell
