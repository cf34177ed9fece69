//===- PtxFuzzer.cpp - Fuzz target: a .ptx file ---------------------------===//
//
// Reads the input as a .ptx file, then counts its instructions by family
// (what `gestell stats` and the count rules do) and walks what the checks
// read: operands, branch targets, debug locations.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "gestell/Families.h"
#include "gestell/InstructionCounts.h"
#include "gestell/Ptx.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  Expected<std::unique_ptr<PtxModule>> M =
      parsePtx(MemoryBuffer::getMemBuffer(Text, "fuzz.ptx",
                                          /*RequiresNullTerminator=*/false),
               "fuzz.ptx");
  if (!M) {
    fuzz::expectInputError(M.takeError(), "fuzz.ptx", Text,
                           fuzz::Position::FileOrText);
    return 0;
  }
  for (const PtxFunction &F : (*M)->Functions) {
    for (const PtxInstruction &I : F.Instructions) {
      if (!fuzz::insideText(Text, I.Line, I.Column))
        fuzz::fail("an instruction at " + Twine(I.Line) + ":" +
                   Twine(I.Column) + ", outside the input");
      if (I.Target != NoIndex && I.Target > F.Instructions.size())
        fuzz::fail("a branch to instruction " + Twine(I.Target) + " of " +
                   Twine(F.Instructions.size()));
      (void)I.operands();
      (void)(*M)->describe(I.Loc);
    }
  }
  fuzz::expectCountsReadBack(countInstructions(**M, FamilyTable::builtin()));
  return 0;
}
