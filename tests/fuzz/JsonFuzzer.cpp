//===- JsonFuzzer.cpp - Fuzz target: a kernel's .json (Triton metadata) ---===//
//
// Reads the input as the <name>.json Triton writes beside a kernel. Errors,
// a syntax error or nesting too deep among them, are at a line and column.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "gestell/Bundle.h"

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  Expected<KernelMetadata> M = parseKernelMetadata(Text, "fuzz.json");
  if (!M)
    fuzz::expectInputError(M.takeError(), "fuzz.json", Text,
                           fuzz::Position::FileOrText);
  return 0;
}
