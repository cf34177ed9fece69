//===- CubinFuzzer.cpp - Fuzz target: a .cubin ----------------------------===//
//
// Reads the input as a cubin (an ELF for EM_CUDA) and prints its resources
// as `cuobjdump -res-usage` does. Errors name the file (a cubin has no
// lines).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "gestell/Cubin.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Bytes = fuzz::asText(Data, Size);
  Expected<CubinInfo> C =
      readCubin(MemoryBufferRef(Bytes, "fuzz.cubin"), "fuzz.cubin");
  if (!C) {
    fuzz::expectInputError(C.takeError(), "fuzz.cubin", Bytes,
                           fuzz::Position::FileOrText);
    return 0;
  }
  C->printResUsage(nulls());
  (void)C->targetName();
  return 0;
}
