//===- NarrowGlobalLoadCheck.cpp - example-narrow-global-load -------------===//
#include "NarrowGlobalLoadCheck.h"

#include "gestell/utils/KernelCode.h"
#include "gestell/utils/Locate.h"

#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace gestell;
using namespace llvm;

namespace example {

CheckInfo NarrowGlobalLoadCheck::info() {
  CheckInfo I;
  I.Id = "example-narrow-global-load";
  I.Summary = "Global loads in a loop move 16 bits or less per instruction";
  I.Description =
      "A PTX ld.global inside a loop whose width (vector count times element "
      "bits) is at most MaxBits: the compiler could not prove the addresses "
      "contiguous and aligned, so each thread loads one element per "
      "instruction instead of one vector.";
  I.Category = "performance";
  I.DefaultLevel = Level::Warning;
  I.Stages = {Stage::PTX};
  // Off unless a config or --checks enables it: this is the template's
  // example, not one of gestell's own checks.
  I.EnabledByDefault = false;
  return I;
}

NarrowGlobalLoadCheck::NarrowGlobalLoadCheck(StringRef Name,
                                             CheckContext &Context)
    : Check(Name, Context), MaxBits(Options.get("MaxBits", 16u)),
      MinCount(Options.get("MinCount", 1u)) {}

void NarrowGlobalLoadCheck::storeOptions(OptionMap &Opts) const {
  Options.store(Opts, "MaxBits", MaxBits);
  Options.store(Opts, "MinCount", MinCount);
}

/// Bits one ld.global moves per thread: "ld.global.v4.b32" -> 128,
/// "ld.global.nc.b16" -> 16. 0 when the opcode names no element type.
static unsigned loadBits(StringRef Opcode) {
  unsigned Vector = 1, Element = 0;
  SmallVector<StringRef, 8> Parts;
  Opcode.split(Parts, '.');
  for (StringRef P : Parts) {
    unsigned N;
    if (P.size() >= 2 && P[0] == 'v' && !P.drop_front().getAsInteger(10, N))
      Vector = N;
    else if (P.size() >= 2 && StringRef("bsuf").contains(P[0]) &&
             !P.drop_front().getAsInteger(10, N))
      Element = N;
  }
  return Vector * Element;
}

Error NarrowGlobalLoadCheck::check(CheckInput &In) {
  Expected<const PtxModule &> Ptx = In.Kernel.ptx();
  if (!Ptx)
    return Ptx.takeError();
  // The kernel's own .entry (the toolkit's kernelFunction), and its loops
  // from the control-flow graph the PTX reader built.
  const PtxFunction *F = kernelFunction(*Ptx, In.Kernel.kernel().Name);
  if (!F)
    return Error::success();
  const PtxInstruction *First = nullptr;
  unsigned Count = 0, Total = 0;
  std::set<std::string> Opcodes;
  for (uint32_t I = 0; I < F->Instructions.size(); ++I) {
    const PtxInstruction &Inst = F->Instructions[I];
    if (!Inst.Opcode.starts_with("ld.global"))
      continue;
    ++Total;
    unsigned Bits = loadBits(Inst.Opcode);
    if (Bits == 0 || Bits > MaxBits || !F->CF.inLoop(I))
      continue;
    if (!First)
      First = &Inst;
    ++Count;
    Opcodes.insert(Inst.Opcode.str());
  }
  if (!First || Count < MinCount)
    return Error::success();
  auto D =
      diag(locate(*Ptx, *First),
           "global loads in a loop move " + Twine(loadBits(First->Opcode)) +
               " bits per instruction in kernel '" + F->Name + "'");
  D.source(pythonSource(*Ptx, *First));
  D.note(Twine(Count) + " narrow global loads in loops (threshold " +
         Twine(MinCount) + "), of " + Twine(Total) + " global loads");
  D.hint("Triton axis analysis and the coalesce pass (TritonGPU)",
         "the loads were not vectorized because contiguity or alignment "
         "could not be proved: pass unit strides as tl.constexpr, or state "
         "them with tl.multiple_of / tl.max_contiguous");
  // The fingerprint: what was loaded, not how often or where.
  for (const std::string &Op : Opcodes)
    D.context(Op);
  return Error::success();
}

} // namespace example
