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
#include "gestell/KernelView.h"
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
    // A short text that reads as a disassembler's error message and holds
    // no listing is the kernel without SASS (nvdisasm ... 2>&1 from an
    // nvdisasm older than the cubin): MissingStage, which the run turns
    // into a note, not an error of the input.
    Error E = handleErrors(M.takeError(), [&](const MissingStage &Missing) {
      if (Missing.S != Stage::SASS || Missing.Reason.empty())
        fuzz::fail("a missing stage other than SASS, or without a reason: " +
                   Missing.message());
      if (Text.size() >= MaxDisassemblerErrorBytes)
        fuzz::fail("a text of MaxDisassemblerErrorBytes or more taken for a "
                   "disassembler's error: " +
                   Missing.message());
    });
    fuzz::expectInputError(std::move(E), "fuzz.sass", Text,
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
