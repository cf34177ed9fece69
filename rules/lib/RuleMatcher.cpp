//===- RuleMatcher.cpp - Pattern rules over TTGIR def-use chains ----------===//
//
// Chains are found depth-first from each op named match[0], following the
// def-use edges the parser recorded (Value::Uses), through the rule's
// `through` ops. Predicates are decided on the layout algebra of Layout.h
// (linear layouts for a shape), each parsed layout cached per attribute.
// A predicate is three-valued: a question gestell cannot answer for this
// module (an encoding it does not model) is unknown, and an unknown
// predicate never lets a chain match.
//
//===----------------------------------------------------------------------===//
#include "gestell/RuleCheck.h"

#include "gestell/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"

#include <cmath>
#include <set>

using namespace llvm;

namespace gestell {

namespace {

enum class Tri : uint8_t { False, True, Unknown };

Tri tri(bool B) { return B ? Tri::True : Tri::False; }

/// Through ops followed per link, at most: a long run of elementwise ops is
/// fine, an unbounded walk over a whole kernel is not.
constexpr unsigned MaxThroughSteps = 4096;

} // namespace

struct RuleMatcher::Impl {
  const TtgirModule &M;
  std::string KernelTarget;
  LayoutContext Ctx;
  DenseMap<const Attribute *, std::shared_ptr<const Layout>> Layouts;

  Impl(const TtgirModule &M, StringRef KernelTarget)
      : M(M), KernelTarget(KernelTarget.str()), Ctx(LayoutContext::of(M)) {}

  const Layout *layout(const Attribute *A) {
    if (!A)
      return nullptr;
    auto It = Layouts.find(A);
    if (It == Layouts.end()) {
      Expected<Layout> L = parseLayout(*A, M);
      std::shared_ptr<const Layout> P;
      if (L)
        P = std::make_shared<Layout>(std::move(*L));
      else
        consumeError(L.takeError());
      It = Layouts.try_emplace(A, std::move(P)).first;
    }
    return It->second.get();
  }

  static const Value *value(const MatchRef &Ref, const RuleMatch &Mt) {
    if (Ref.Index >= Mt.Ops.size())
      return nullptr;
    const Operation *Op = Mt.Ops[Ref.Index];
    switch (Ref.K) {
    case MatchRef::Kind::Op:
      return nullptr;
    case MatchRef::Kind::Operand:
      return Ref.N < Op->Operands.size() ? Op->Operands[Ref.N] : nullptr;
    case MatchRef::Kind::Result:
      return Ref.N < Op->Results.size() ? Op->Results[Ref.N] : nullptr;
    }
    return nullptr;
  }
  static const Operation *op(const MatchRef &Ref, const RuleMatch &Mt) {
    return Ref.Index < Mt.Ops.size() ? Mt.Ops[Ref.Index] : nullptr;
  }

  /// The layout and type of a value with a tensor type.
  std::pair<const Layout *, const Type *> tensorLayout(const Value *V) {
    if (!V || !V->Ty || !V->Ty->Encoding)
      return {nullptr, nullptr};
    return {layout(V->Ty->Encoding), V->Ty};
  }

  /// The TMEM memdesc a store writes: the op's first operand whose type is
  /// a memdesc in tensor memory (or the value itself).
  const Type *tmemDesc(const Predicate &P, const RuleMatch &Mt) {
    auto IsTmem = [](const Type *T) {
      return T && T->K == Type::Kind::MemDesc && T->Encoding &&
             T->Encoding->isDialect("ttng.tensor_memory_encoding");
    };
    if (P.Other.isValue()) {
      const Value *V = value(P.Other, Mt);
      return V && IsTmem(V->Ty) ? V->Ty : nullptr;
    }
    const Operation *O = op(P.Other, Mt);
    if (!O)
      return nullptr;
    for (const Value *V : O->Operands)
      if (IsTmem(V->Ty))
        return V->Ty;
    return nullptr;
  }

  std::optional<ConversionCost> cost(const Value *Src, const Value *Dst) {
    auto [SL, ST] = tensorLayout(Src);
    auto [DL, DT] = tensorLayout(Dst);
    if (!SL || !DL)
      return std::nullopt;
    Expected<ConversionAnalysis> A = analyzeConversion(*SL, *DL, ST->Shape);
    if (!A) {
      consumeError(A.takeError());
      return std::nullopt;
    }
    return A->Cost;
  }

  StringRef target() const {
    StringRef T = M.target();
    return T.empty() ? StringRef(KernelTarget) : T;
  }

  Tri decide(const Predicate &P, const RuleMatch &Mt) {
    switch (P.K) {
    case Predicate::Kind::Equivalent:
      return decideEquivalent(P, Mt);
    case Predicate::Kind::TmemCompatible:
      return decideTmemCompatible(P, Mt);
    case Predicate::Kind::Cost:
      return decideCost(P, Mt);
    case Predicate::Kind::InLoop: {
      const Operation *O = op(P.Subject, Mt);
      return O ? tri(O->loopDepth() > 0) : Tri::Unknown;
    }
    case Predicate::Kind::LoopDepth:
      return decideLoopDepth(P, Mt);
    case Predicate::Kind::Shape:
      return decideShape(P, Mt);
    case Predicate::Kind::Dtype: {
      const Value *V = value(P.Subject, Mt);
      if (!V || !V->Ty)
        return Tri::Unknown;
      return tri(is_contained(P.Values, V->Ty->elementName()));
    }
    case Predicate::Kind::Attr:
      return decideAttr(P, Mt);
    case Predicate::Kind::Target:
      return decideTarget(P);
    }
    return Tri::Unknown;
  }

  /// An answer of the layout algebra; an error is a question it cannot
  /// answer.
  static Tri answer(Expected<bool> B) {
    if (!B) {
      consumeError(B.takeError());
      return Tri::Unknown;
    }
    return tri(*B);
  }

  Tri decideEquivalent(const Predicate &P, const RuleMatch &Mt) {
    auto [A, AT] = tensorLayout(value(P.Subject, Mt));
    auto [B, BT] = tensorLayout(value(P.Other, Mt));
    if (!A || !B)
      return Tri::Unknown;
    return answer(areEquivalent(*A, *B, AT->Shape));
  }

  Tri decideTmemCompatible(const Predicate &P, const RuleMatch &Mt) {
    auto [Reg, RT] = tensorLayout(value(P.Subject, Mt));
    const Type *Mem = tmemDesc(P, Mt);
    const Layout *ML = Mem ? layout(Mem->Encoding) : nullptr;
    if (!Reg || !ML)
      return Tri::Unknown;
    ArrayRef<int64_t> MemShape =
        Mem->AllocShape.empty() ? Mem->Shape : Mem->AllocShape;
    return answer(isTmemCompatible(*Reg, RT->Shape, Mem->elementBitWidth(), *ML,
                                   MemShape, Ctx.MaxNReg));
  }

  Tri decideCost(const Predicate &P, const RuleMatch &Mt) {
    std::optional<ConversionCost> C;
    if (P.Subject.isValue()) {
      C = cost(value(P.Subject, Mt), value(P.Other, Mt));
    } else if (const Operation *O = op(P.Subject, Mt)) {
      if (!O->Operands.empty() && !O->Results.empty())
        C = cost(O->Operands[0], O->Results[0]);
    }
    if (!C)
      return Tri::Unknown;
    return tri(is_contained(P.Values, costName(*C)));
  }

  Tri decideLoopDepth(const Predicate &P, const RuleMatch &Mt) {
    const Operation *O = op(P.Subject, Mt);
    if (!O)
      return Tri::Unknown;
    int64_t D = O->loopDepth();
    if (P.Equals)
      return tri(D == *P.Equals);
    return tri((!P.Min || D >= *P.Min) && (!P.Max || D <= *P.Max));
  }

  Tri decideShape(const Predicate &P, const RuleMatch &Mt) {
    const Value *V = value(P.Subject, Mt);
    if (!V || !V->Ty ||
        (V->Ty->K != Type::Kind::Tensor && V->Ty->K != Type::Kind::MemDesc))
      return Tri::Unknown;
    ArrayRef<int64_t> S = V->Ty->Shape;
    if (P.Rank && static_cast<int64_t>(S.size()) != *P.Rank)
      return Tri::False;
    if (!P.Dims.empty()) {
      if (S.size() != P.Dims.size())
        return Tri::False;
      for (size_t I = 0; I < S.size(); ++I)
        if (P.Dims[I] != -1 && P.Dims[I] != S[I])
          return Tri::False;
    }
    return Tri::True;
  }

  Tri decideAttr(const Predicate &P, const RuleMatch &Mt) {
    const Operation *O = op(P.Subject, Mt);
    if (!O)
      return Tri::Unknown;
    const Attribute *A = O->attr(P.Name);
    if (!A)
      return Tri::False;
    if (!P.AttrValue)
      return Tri::True;
    return std::visit([&](const auto &Want) { return attrEquals(*A, Want); },
                      *P.AttrValue);
  }

  /// Whether an attribute holds the value a rule wants: a bool, an integer,
  /// a float or a string.
  template <typename T>
  static Tri attrEquals(const Attribute &A, const T &Want) {
    if constexpr (std::is_same_v<T, bool>) {
      if (A.K == Attribute::Kind::Bool || A.K == Attribute::Kind::Integer)
        return tri((A.Int != 0) == Want);
      return tri(A.Spelling == (Want ? "true" : "false"));
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (A.K == Attribute::Kind::Integer || A.K == Attribute::Kind::Bool)
        return tri(A.Int == Want);
      if (A.K == Attribute::Kind::Float)
        return tri(A.Float == static_cast<double>(Want));
      return Tri::False;
    } else if constexpr (std::is_same_v<T, double>) {
      if (A.K == Attribute::Kind::Float)
        return tri(A.Float == Want);
      if (A.K == Attribute::Kind::Integer)
        return tri(static_cast<double>(A.Int) == Want);
      return Tri::False;
    } else {
      if (A.K == Attribute::Kind::String || A.K == Attribute::Kind::Symbol)
        return tri(A.Spelling == Want);
      return tri(A.str() == Want || A.Text == Want);
    }
  }

  Tri decideTarget(const Predicate &P) {
    StringRef T = target();
    if (T.empty())
      return Tri::Unknown;
    for (const std::string &Want : P.Values) {
      if (Want.find_first_of("*?[{") == std::string::npos) {
        if (T == Want)
          return Tri::True;
        continue;
      }
      Expected<GlobPattern> G = GlobPattern::create(Want);
      if (!G) {
        consumeError(G.takeError());
        continue;
      }
      if (G->match(T))
        return Tri::True;
    }
    return Tri::False;
  }

  bool holds(const Rule &R, const RuleMatch &Mt) {
    for (const Predicate &P : R.Where) {
      Tri T = decide(P, Mt);
      if (T == Tri::Unknown)
        return false;
      if ((T == Tri::True) == P.Negated)
        return false;
    }
    return true;
  }

  /// Extends Chain (ending in match[K]) to complete chains.
  void extend(const Rule &R, RuleMatch &Chain, std::vector<RuleMatch> &Out,
              std::set<SmallVector<const Operation *, 4>> &Seen,
              size_t MaxMatches) {
    if (Out.size() >= MaxMatches)
      return;
    size_t K = Chain.Ops.size();
    if (K == R.Match.size()) {
      if (Seen.insert(Chain.Ops).second && holds(R, Chain))
        Out.push_back(Chain);
      return;
    }
    const OpPattern &Next = R.Match[K];
    SmallVector<const Value *, 8> Work(Chain.Ops.back()->Results.begin(),
                                       Chain.Ops.back()->Results.end());
    DenseSet<const Value *> Visited(Work.begin(), Work.end());
    DenseSet<const Operation *> Found;
    unsigned Steps = 0;
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      for (const Use &U : V->Uses) {
        const Operation *User = U.User;
        if (Next.matches(User->Name) && Found.insert(User).second &&
            !is_contained(Chain.Ops, User)) {
          Chain.Ops.push_back(User);
          extend(R, Chain, Out, Seen, MaxMatches);
          Chain.Ops.pop_back();
        }
        if (++Steps > MaxThroughSteps)
          return;
        if (any_of(R.Through,
                   [&](const OpPattern &T) { return T.matches(User->Name); }))
          for (const Value *Res : User->Results)
            if (Visited.insert(Res).second)
              Work.push_back(Res);
      }
    }
  }
};

RuleMatcher::RuleMatcher(const TtgirModule &M, StringRef KernelTarget)
    : I(std::make_unique<Impl>(M, KernelTarget)) {}
RuleMatcher::~RuleMatcher() = default;

std::vector<RuleMatch> RuleMatcher::match(const Rule &R, size_t MaxMatches) {
  std::vector<RuleMatch> Out;
  if (R.Match.empty())
    return Out;
  std::set<SmallVector<const Operation *, 4>> Seen;
  for (const Operation *Op : I->M.ops()) {
    if (!R.Match[0].matches(Op->Name))
      continue;
    RuleMatch Chain;
    Chain.Ops.push_back(Op);
    I->extend(R, Chain, Out, Seen, MaxMatches);
    if (Out.size() >= MaxMatches)
      break;
  }
  return Out;
}

std::string RuleMatcher::layoutText(const Value &V) {
  if (!V.Ty)
    return "(unknown type)";
  if (V.Ty->Encoding)
    return canonicalLayoutText(*V.Ty->Encoding, I->M);
  return V.Ty->Text.str();
}

namespace {
std::string shapeText(ArrayRef<int64_t> Shape) {
  if (Shape.empty())
    return "scalar";
  std::string S;
  for (size_t D = 0; D < Shape.size(); ++D) {
    if (D)
      S += 'x';
    S += Shape[D] < 0 ? "?" : std::to_string(Shape[D]);
  }
  return S;
}

std::string numberText(const std::optional<double> &V) {
  if (!V)
    return "unknown";
  double D = *V;
  if (std::isfinite(D) && std::floor(D) == D && std::fabs(D) < 1e15)
    return std::to_string(static_cast<int64_t>(D));
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", D);
  return Buf;
}
} // namespace

std::string RuleMatcher::render(const Template &T, const RuleMatch &Mt,
                                StringRef Kernel) {
  std::string Out;
  for (const Template::Part &P : T.Parts) {
    if (!P.Hole) {
      Out += P.Text;
      continue;
    }
    const Placeholder &H = *P.Hole;
    switch (H.K) {
    case Placeholder::Kind::Kernel:
      Out += Kernel;
      continue;
    case Placeholder::Kind::Target:
      Out += I->target().empty() ? "unknown" : I->target().str();
      continue;
    case Placeholder::Kind::Metric:
      Out += "?";
      continue;
    case Placeholder::Kind::Match:
      break;
    }
    if (!H.Ref.isValue()) {
      const Operation *O = Impl::op(H.Ref, Mt);
      if (!O) {
        Out += "?";
        continue;
      }
      switch (H.F) {
      case Placeholder::Field::Line:
        Out += std::to_string(O->Line);
        break;
      case Placeholder::Field::LoopDepth:
        Out += std::to_string(O->loopDepth());
        break;
      case Placeholder::Field::Cost: {
        std::optional<ConversionCost> C;
        if (!O->Operands.empty() && !O->Results.empty())
          C = I->cost(O->Operands[0], O->Results[0]);
        Out += C ? costName(*C).str() : "unknown";
        break;
      }
      default:
        Out += O->Name;
        break;
      }
      continue;
    }
    const Value *V = Impl::value(H.Ref, Mt);
    if (!V) {
      Out += "(none)";
      continue;
    }
    switch (H.F) {
    case Placeholder::Field::Shape:
      Out += V->Ty ? shapeText(V->Ty->Shape) : "unknown";
      break;
    case Placeholder::Field::Dtype:
      Out += V->Ty ? V->Ty->elementName().str() : "unknown";
      break;
    case Placeholder::Field::Type:
      if (V->Ty && V->Ty->K == Type::Kind::Tensor && V->Ty->Encoding)
        Out += "tensor<" + shapeText(V->Ty->Shape) + "x" +
               V->Ty->elementName().str() + ", " + layoutText(*V) + ">";
      else
        Out += V->Ty ? V->Ty->Text.str() : "unknown";
      break;
    case Placeholder::Field::Layout:
      Out += V->Ty && V->Ty->Encoding ? layoutText(*V) : "(no layout)";
      break;
    default:
      Out += layoutText(*V);
      break;
    }
  }
  return Out;
}

std::string renderCountTemplate(const Template &T, const MetricProvider &P,
                                StringRef Kernel, StringRef Target) {
  std::string Out;
  for (const Template::Part &Part : T.Parts) {
    if (!Part.Hole) {
      Out += Part.Text;
      continue;
    }
    const Placeholder &H = *Part.Hole;
    switch (H.K) {
    case Placeholder::Kind::Kernel:
      Out += Kernel;
      break;
    case Placeholder::Kind::Target:
      Out += Target.empty() ? "unknown" : Target.str();
      break;
    case Placeholder::Kind::Metric:
      Out += numberText(H.Metric->evaluate(P).Number);
      break;
    case Placeholder::Kind::Match:
      Out += "?";
      break;
    }
  }
  return Out;
}

} // namespace gestell
