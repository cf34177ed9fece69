//===- main.cpp - The gestell command -------------------------------------===//
#include "gestell/Bundle.h"

#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  std::vector<std::string> Paths(argv + 1, argv + argc);
  gestell::Discovery D = gestell::discoverKernels(Paths);
  for (const gestell::Kernel &K : D.Kernels) {
    llvm::outs() << K.Dir << " " << K.Name << " " << K.target() << " :";
    for (llvm::StringRef S : K.presentStages())
      llvm::outs() << ' ' << S;
    llvm::outs() << '\n';
  }
  for (auto &P : D.Problems)
    llvm::errs() << P.Path << ": " << P.Message << '\n';
  return 0;
}
