//===- gestell/Ttgir.h - TritonGPU IR view --------------------------------===//
//
// Placeholder: the TTGIR parser, locations and layouts come with their own
// issue. The KernelView exposes the module through this header.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TTGIR_H
#define GESTELL_TTGIR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace gestell {

struct TtgirModule {
  std::string Path;
};

llvm::Expected<std::unique_ptr<TtgirModule>> parseTtgir(llvm::StringRef Path);

} // namespace gestell

#endif
