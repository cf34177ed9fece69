//===- WgmmaSyncCause.cpp - Why a TTGIR dot keeps no wgmma in flight ------===//
#include "WgmmaSyncCause.h"

#include "llvm/ADT/STLExtras.h"

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
  for (unsigned Steps = 0; Steps < 16; ++Steps) {
    if (V->isBlockArgument()) {
      const Region *R = V->OwnerBlock ? V->OwnerBlock->Parent : nullptr;
      if (!R || R->Parent != &Loop)
        return nullptr;
      V = loopCarried(*V).Yielded;
      if (!V)
        return nullptr;
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
/// iteration, or null.
const Value *carriedArg(const Operation &Loop, const Value &Yielded) {
  if (Loop.Regions.empty() || Loop.Regions[0]->Blocks.empty())
    return nullptr;
  const Block &Body = *Loop.Regions[0]->Blocks[0];
  if (Body.Ops.empty() || Body.Ops.back()->Name != "scf.yield")
    return nullptr;
  ArrayRef<Value *> Ys = Body.Ops.back()->Operands;
  for (unsigned I = 0; I < Ys.size(); ++I)
    if (Ys[I] == &Yielded && I + 1 < Body.Args.size())
      return Body.Args[I + 1]; // argument 0 is the induction variable
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
    if (const Operation *D = Wait.Operands[I]->Def;
        D && D->Name == "ttng.warp_group_dot" && D->parentOp() == Loop)
      break;
  if (I == Wait.Operands.size() || I >= Wait.Results.size())
    return C;
  C.Dot = Wait.Operands[I]->Def;
  const Value &Result = *Wait.Results[I];

  for (unsigned Op : {0u, 1u})
    if (Op < C.Dot->Operands.size() && !C.Unbuffered)
      C.Unbuffered = unbuffered(C.Dot->Operands[Op], *Loop);
  if (C.Unbuffered && !C.Unbuffered->Operands.empty())
    C.UnbufferedSource = C.Unbuffered->Operands[0]->Def;

  C.ReadInIteration = readerInBody(Result, *Loop);
  if (const Type *T = C.Dot->resultType())
    C.NonF32Accumulator = T->elementName() != "f32";
  if (const Value *Arg = carriedArg(*Loop, Result))
    C.ReadCarried = readerInBody(*Arg, *Loop);
  return C;
}

} // namespace gestell::nvidia
