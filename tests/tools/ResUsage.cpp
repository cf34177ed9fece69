//===- ResUsage.cpp - Print a cubin's resources like cuobjdump -res-usage -===//
//
// gestell-res-usage FILE.cubin: prints what gestell reads from the cubin in
// the exact layout of `cuobjdump -res-usage`, so tools/verify_resources.sh
// can compare it byte for byte with the .res-usage.txt beside each cubin.
// Exit 0 on success, 2 when the file cannot be read as a cubin.
//
//===----------------------------------------------------------------------===//
#include "gestell/Cubin.h"

#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: gestell-res-usage FILE.cubin\n";
    return 2;
  }
  llvm::Expected<gestell::CubinInfo> Info = gestell::readCubin(argv[1]);
  if (!Info) {
    llvm::errs() << "gestell-res-usage: " << llvm::toString(Info.takeError())
                 << "\n";
    return 2;
  }
  Info->printResUsage(llvm::outs());
  return 0;
}
