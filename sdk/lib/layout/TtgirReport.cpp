//===- TtgirReport.cpp - Conversions and loops of a TTGIR module ----------===//
#include "gestell/TtgirReport.h"
#include "gestell/Layout.h"
#include "gestell/SourceLoc.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>
#include <map>
#include <memory>

using namespace llvm;

namespace gestell {

namespace {

/// The first ttng.tmem_store whose stored value is V or computed from V
/// through elementwise ops only.
const Operation *storeFedBy(const Value &V) {
  std::deque<const Value *> Work{&V};
  DenseSet<const Value *> Seen{&V};
  while (!Work.empty()) {
    const Value *X = Work.front();
    Work.pop_front();
    for (const Use &U : X->Uses) {
      const Operation &User = *U.User;
      if (User.Name == "ttng.tmem_store" && U.OperandNo == 0)
        return &User;
      if (!User.isElementwise() || User.Results.size() != 1)
        continue;
      const Value *R = User.Results[0];
      if (!R->Ty || !X->Ty || R->Ty->Shape != X->Ty->Shape)
        continue;
      if (Seen.insert(R).second)
        Work.push_back(R);
    }
  }
  return nullptr;
}

class Reporter {
public:
  explicit Reporter(const TtgirModule &M) : M(M), Ctx(LayoutContext::of(M)) {}

  const Layout *layout(const Attribute *A, std::string &Why) {
    if (!A) {
      Why = "no encoding";
      return nullptr;
    }
    auto It = Cache.find(A);
    if (It == Cache.end()) {
      Expected<Layout> L = parseLayout(*A, M);
      std::shared_ptr<Layout> P;
      if (L)
        P = std::make_shared<Layout>(std::move(*L));
      else
        Errors[A] = toString(L.takeError());
      It = Cache.try_emplace(A, P).first;
    }
    if (!It->second)
      Why = Errors[A];
    return It->second.get();
  }

  ConversionReport conversion(const Operation &Op) {
    ConversionReport C;
    C.Line = Op.Line;
    C.Column = Op.Column;
    C.LoopDepth = Op.loopDepth();
    C.Source = userSource(Op.Loc);
    const Type *S = Op.operandType(0), *D = Op.resultType();
    if (!S || !D) {
      C.CostProblem = "the operand or result type is not known";
      return C;
    }
    C.Src = S->Encoding ? canonicalLayoutText(*S->Encoding, M) : S->Text.str();
    C.Dst = D->Encoding ? canonicalLayoutText(*D->Encoding, M) : D->Text.str();
    C.Shape.assign(S->Shape.begin(), S->Shape.end());
    C.Dtype = S->elementName().str();
    std::string Why;
    const Layout *SL = layout(S->Encoding, Why);
    const Layout *DL = SL ? layout(D->Encoding, Why) : nullptr;
    if (SL && DL) {
      Expected<ConversionAnalysis> A = analyzeConversion(*SL, *DL, S->Shape);
      if (A) {
        C.Cost = costName(A->Cost).str();
        C.MovingDims.assign(A->MovingDims.begin(), A->MovingDims.end());
      } else {
        C.CostProblem = toString(A.takeError());
      }
    } else {
      C.CostProblem = Why;
    }
    if (const Operation *Store =
            Op.Results.empty() ? nullptr : storeFedBy(*Op.Results[0])) {
      C.TmemStoreLine = Store->Line;
      const Type *Mem = Store->operandType(1);
      std::string MemWhy;
      const Layout *ML = Mem && Mem->K == Type::Kind::MemDesc
                             ? layout(Mem->Encoding, MemWhy)
                             : nullptr;
      if (SL && ML) {
        ArrayRef<int64_t> MemShape =
            Mem->AllocShape.empty() ? Mem->Shape : Mem->AllocShape;
        Expected<bool> Ok = isTmemCompatible(
            *SL, S->Shape, Mem->elementBitWidth(), *ML, MemShape, Ctx.MaxNReg);
        if (Ok)
          C.TmemCompatibleSrc = *Ok;
        else
          consumeError(Ok.takeError());
      }
    }
    return C;
  }

  LoopReport loop(const Operation &Op) {
    LoopReport L;
    L.Line = Op.Line;
    L.Column = Op.Column;
    L.Op = Op.Name.str();
    L.Depth = Op.loopDepth() + 1;
    L.Source = userSource(Op.Loc);
    std::map<std::string, unsigned> Counts;
    Op.walk([&](Operation &In) {
      ++Counts[In.Name.str()];
      ++L.Total;
    });
    L.Ops.assign(Counts.begin(), Counts.end());
    return L;
  }

private:
  const TtgirModule &M;
  LayoutContext Ctx;
  DenseMap<const Attribute *, std::shared_ptr<Layout>> Cache;
  DenseMap<const Attribute *, std::string> Errors;
};

void nullOr(json::OStream &J, StringRef Key, StringRef S) {
  J.attribute(Key, S.empty() ? json::Value(nullptr) : json::Value(S));
}

} // namespace

TtgirReport reportTtgir(const TtgirModule &M) {
  TtgirReport R;
  R.Target = M.target().str();
  R.NumWarps = M.numWarps();
  R.ThreadsPerWarp = M.threadsPerWarp();
  R.NumCtas = M.numCtas();
  R.Ops = M.ops().size();
  Reporter Rep(M);
  for (const Operation *Op : M.ops()) {
    if (Op->isLoop())
      R.Loops.push_back(Rep.loop(*Op));
    if (Op->Name == "ttg.convert_layout")
      R.Conversions.push_back(Rep.conversion(*Op));
  }
  return R;
}

void writeConversionsJson(json::OStream &J, const TtgirReport &R) {
  J.arrayBegin();
  for (const ConversionReport &C : R.Conversions) {
    J.objectBegin();
    J.attribute("line", C.Line);
    J.attribute("column", C.Column);
    J.attribute("src", C.Src);
    J.attribute("dst", C.Dst);
    J.attributeArray("shape", [&] {
      for (int64_t D : C.Shape)
        J.value(D);
    });
    J.attribute("dtype", C.Dtype);
    J.attribute("in_loop", C.LoopDepth > 0);
    J.attribute("loop_depth", C.LoopDepth);
    J.attribute("cost", C.Cost ? json::Value(*C.Cost) : json::Value(nullptr));
    nullOr(J, "cost_problem", C.CostProblem);
    J.attributeArray("moving_dims", [&] {
      for (const std::string &D : C.MovingDims)
        J.value(D);
    });
    J.attribute("tmem_compatible_src", C.TmemCompatibleSrc
                                           ? json::Value(*C.TmemCompatibleSrc)
                                           : json::Value(nullptr));
    J.attribute("tmem_store_line", C.TmemStoreLine
                                       ? json::Value(C.TmemStoreLine)
                                       : json::Value(nullptr));
    nullOr(J, "source", C.Source);
    J.objectEnd();
  }
  J.arrayEnd();
}

void writeTtgirJson(json::OStream &J, const TtgirReport &R) {
  J.objectBegin();
  nullOr(J, "target", R.Target);
  J.attribute("num_warps", R.NumWarps);
  J.attribute("threads_per_warp", R.ThreadsPerWarp);
  J.attribute("num_ctas", R.NumCtas);
  J.attribute("ops", R.Ops);
  J.attributeArray("loops", [&] {
    for (const LoopReport &L : R.Loops) {
      J.objectBegin();
      J.attribute("line", L.Line);
      J.attribute("column", L.Column);
      J.attribute("op", L.Op);
      J.attribute("depth", L.Depth);
      J.attribute("total", L.Total);
      J.attributeObject("ops", [&] {
        for (const auto &[Name, N] : L.Ops)
          J.attribute(Name, N);
      });
      nullOr(J, "source", L.Source);
      J.objectEnd();
    }
  });
  J.objectEnd();
}

} // namespace gestell
