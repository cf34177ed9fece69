//===- WgmmaSyncCause.cpp - Why a TTGIR dot keeps no wgmma in flight ------===//
#include "WgmmaSyncCause.h"

#include "gestell/utils/Locate.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace gestell::nvidia {
namespace {

bool inside(const Operation &Op, const Operation &Loop) {
  for (const Operation *P = &Op; P; P = P->parentOp())
    if (P == &Loop)
      return true;
  return false;
}

/// Ops Triton looks through between a shared-memory operand and its source.
bool isView(StringRef Name) {
  return Name == "ttg.convert_layout" || Name == "ttg.memdesc_trans" ||
         Name == "ttg.memdesc_reshape" || Name == "ttg.memdesc_subslice";
}

/// Rule 1 for one operand: the op of the loop that makes it, when that is
/// not a multi-buffered ring; a value carried by the loop is followed to what
/// the loop yields for it.
const Operation *unbuffered(const Value *V, const Operation &Loop) {
  if (!V || !V->Ty || V->Ty->K != Type::Kind::MemDesc)
    return nullptr; // a register operand can always be async
  for (unsigned Steps = 0; V && Steps < 16; ++Steps) {
    if (V->isBlockArgument()) {
      const Region *R = V->OwnerBlock ? V->OwnerBlock->Parent : nullptr;
      if (!R || R->Parent != &Loop)
        return nullptr;
      V = loopCarried(*V).Yielded;
      continue;
    }
    const Operation &Def = *V->Def;
    if (isView(Def.Name) && !Def.Operands.empty()) {
      V = Def.Operands[0];
      continue;
    }
    if (!inside(Def, Loop) || Def.Name == "ttg.memdesc_index")
      return nullptr;
    return &Def;
  }
  return nullptr;
}

/// The loop body's block argument that carries Yielded into the next
/// iteration (loopCarried's inverse), or null.
const Value *carriedArg(const Operation &Loop, const Value &Yielded) {
  if (Loop.Regions.empty() || Loop.Regions[0]->Blocks.empty())
    return nullptr;
  for (const Value *Arg : Loop.Regions[0]->Blocks[0]->Args)
    if (loopCarried(*Arg).Yielded == &Yielded)
      return Arg;
  return nullptr;
}

/// The first reader of V in the loop body itself (not under an scf.if) that
/// is neither the yield nor a dot's accumulator.
const Operation *readerInBody(const Value &V, const Operation &Loop) {
  for (const Use &U : V.Uses) {
    const Operation &User = *U.User;
    if (User.parentOp() != &Loop || User.Name == "scf.yield" ||
        User.Name == "ttng.warp_group_dot_wait")
      continue;
    if (User.Name == "ttng.warp_group_dot" && U.OperandNo == 2)
      continue;
    return &User;
  }
  return nullptr;
}

} // namespace

WgmmaSyncCause wgmmaSyncCause(const Operation &Wait) {
  WgmmaSyncCause C;
  const Operation *Loop = Wait.enclosingLoop();
  if (!Loop)
    return C;
  // The wait's operands are threaded through it: result I is operand I.
  unsigned I = 0;
  for (; I < Wait.Operands.size(); ++I)
    if (const Operation *D = Wait.Operands[I] ? Wait.Operands[I]->Def : nullptr;
        D && D->Name == "ttng.warp_group_dot" && D->parentOp() == Loop)
      break;
  if (I == Wait.Operands.size() || I >= Wait.Results.size())
    return C;
  C.Dot = Wait.Operands[I]->Def;
  const Value &Result = *Wait.Results[I];

  for (unsigned Op : {0u, 1u})
    if (Op < C.Dot->Operands.size() && !C.Unbuffered)
      C.Unbuffered = unbuffered(C.Dot->Operands[Op], *Loop);
  if (C.Unbuffered && !C.Unbuffered->Operands.empty() &&
      C.Unbuffered->Operands[0])
    C.UnbufferedSource = C.Unbuffered->Operands[0]->Def;

  C.ReadInIteration = readerInBody(Result, *Loop);
  if (const Type *T = C.Dot->resultType())
    C.NonF32Accumulator = T->elementName() != "f32";
  if (const Value *Arg = carriedArg(*Loop, Result))
    C.ReadCarried = readerInBody(*Arg, *Loop);
  return C;
}

void explainSyncDot(DiagnosticBuilder &D, const TtgirModule *Ttgir,
                    const Operation *DotWait) {
  WgmmaSyncCause C = DotWait ? wgmmaSyncCause(*DotWait) : WgmmaSyncCause();
  SmallVector<std::string, 4> Broken;
  if (C.Unbuffered) {
    D.related(locate(*Ttgir, *C.Unbuffered),
              "the dot's operand: " + C.Unbuffered->Name.str() +
                  " in the loop, not a multi-buffered ring "
                  "(ttg.memdesc_index)");
    StringRef Made =
        C.UnbufferedSource ? StringRef(C.UnbufferedSource->Name) : StringRef();
    if (C.UnbufferedSource)
      D.related(locate(*Ttgir, *C.UnbufferedSource),
                "what it stores: " + Made.str());
    std::string Why =
        Made == "tt.load"
            ? " of a tt.load of the same iteration: the loads were not "
              "pipelined (a tt.load becomes an async copy only when each "
              "thread copies at least 4 contiguous bytes: the contiguity and "
              "divisibility of its pointers and mask, tt.multiple_of, "
              "strides divisible by 16; and num_stages > 1; a tensor "
              "descriptor load always can)"
        : Made == "ttg.local_load"
            ? " of a ttg.local_load: each iteration the tile is read back "
              "from the buffer its copy wrote and stored again in the "
              "shared layout the dot reads (a transposed operand, for "
              "instance, which fp8 wgmma cannot read and a TMA copy cannot "
              "write); store the operand as the dot reads it"
            : " made in the loop from " +
                  (Made.empty() ? std::string("a loop value") : Made.str());
    Broken.push_back("its shared-memory operand is not multi-buffered: the "
                     "dot reads " +
                     C.Unbuffered->Name.str() + Why);
  }
  if (C.ReadInIteration) {
    D.related(locate(*Ttgir, *C.ReadInIteration),
              "reads the dot's result in the same iteration: " +
                  C.ReadInIteration->Name.str());
    Broken.push_back("the loop reads the accumulator in the same iteration (" +
                     C.ReadInIteration->Name.str() +
                     "): move that use after the loop or under a condition");
  }
  if (C.NonF32Accumulator)
    Broken.push_back("the accumulator is not f32, and only f32 accumulation "
                     "is made async");
  if (C.ReadCarried) {
    D.related(locate(*Ttgir, *C.ReadCarried),
              "reads the carried accumulator before the next dot: " +
                  C.ReadCarried->Name.str());
    Broken.push_back("the accumulator carried into the next iteration is "
                     "read by " +
                     C.ReadCarried->Name.str() +
                     " before the next dot, not only as a dot's accumulator");
  }
  if (Broken.empty()) {
    D.hint("TritonGPU software pipeliner (MMA pipelining)",
           "the pipeliner left ttng.warp_group_dot_wait {pendings = 0}: it "
           "keeps no wgmma in flight when the dot's result is used in the "
           "same iteration (the accumulator feeds other ops before the next "
           "dot) or num_stages leaves no room; nothing ptxas did");
    return;
  }
  bool Loads = C.UnbufferedSource && C.UnbufferedSource->Name == "tt.load";
  D.hint(Loads ? "TritonGPU software pipeliner (load pipelining)"
               : "TritonGPU software pipeliner (MMA pipelining)",
         "the pipeliner keeps a wgmma in flight only for a dot it can make "
         "async, and here " +
             join(Broken, "; and ") + "; nothing ptxas did");
}

} // namespace gestell::nvidia
