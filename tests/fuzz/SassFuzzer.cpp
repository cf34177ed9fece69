//===- SassFuzzer.cpp - Fuzz target: a .sass listing, any rendering -------===//
//
// Reads the input as a .sass file; the reader tells nvdisasm, cuobjdump,
// triton.tools.disasm and TritonParse listings apart by content, so one
// target covers the four (the corpus holds seeds of each). Then counts its
// instructions by family, as `gestell stats` does.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "gestell/Families.h"
#include "gestell/InstructionCounts.h"
#include "gestell/Sass.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  (void)detectSassFormat(Text);
  Expected<std::unique_ptr<SassModule>> M =
      parseSass(MemoryBuffer::getMemBuffer(Text, "fuzz.sass",
                                           /*RequiresNullTerminator=*/false),
                "fuzz.sass");
  if (!M) {
    fuzz::expectInputError(M.takeError(), "fuzz.sass", Text,
                           fuzz::Position::FileOrText);
    return 0;
  }
  for (const SassFunction &F : (*M)->Functions) {
    for (const SassInstruction &I : F.Instructions) {
      if (!fuzz::insideText(Text, I.Line, I.Column))
        fuzz::fail("an instruction at " + Twine(I.Line) + ":" +
                   Twine(I.Column) + ", outside the input");
      if (I.BranchTarget != NoAddress)
        (void)F.indexAtOrAfter(I.BranchTarget);
      if (I.Frame != NoIndex && I.Frame >= (*M)->Frames.size())
        fuzz::fail("an instruction names line-info frame " + Twine(I.Frame) +
                   " of " + Twine((*M)->Frames.size()));
    }
  }
  fuzz::expectCountsReadBack(countInstructions(**M, FamilyTable::builtin()));
  return 0;
}
