//===- Cubin.cpp - cubin reader (placeholder) -----------------------------===//
#include "gestell/Cubin.h"
#include "gestell/Error.h"

namespace gestell {
llvm::Expected<CubinInfo> readCubin(llvm::StringRef Path) {
  return inputError(Path, "cubin reading is not available in this build");
}
} // namespace gestell
