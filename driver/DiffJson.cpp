//===- DiffJson.cpp - gestell diff as one JSON object ---------------------===//
//
// The contract scripts parse; docs/diff.md documents every key. Per-state
// values are arrays in state order (index 0 = the base), null where the
// kernel has no match or no such stage.
//
//===----------------------------------------------------------------------===//
#include "DiffModel.h"

#include "llvm/Support/JSON.h"

using namespace llvm;

namespace gestell::driver {

namespace {

/// Values: a range of std::optional (one per state).
template <typename RangeT>
void optionalArray(json::OStream &J, StringRef Key, const RangeT &Values) {
  J.attributeArray(Key, [&] {
    for (const auto &V : Values)
      V ? J.value(*V) : J.value(nullptr);
  });
}

/// A JSON string, or null for an empty one.
json::Value orNull(StringRef S) {
  return S.empty() ? json::Value(nullptr) : json::Value(S);
}

void countArrays(json::OStream &J, const CountRow &C) {
  for (bool Loop : {true, false})
    J.attributeArray(Loop ? "loop" : "total", [&] {
      for (const auto &V : C.Values)
        if (std::optional<uint64_t> X = pickCount(V, Loop))
          J.value(*X);
        else
          J.value(nullptr);
    });
}

void key(json::OStream &J, const MatchKey &K) {
  J.attributeObject("key", [&] {
    J.attribute("name", K.Name);
    J.attribute("target", orNull(K.Target));
    J.attribute("num_warps",
                K.NumWarps ? json::Value(*K.NumWarps) : json::Value(nullptr));
    J.attribute("num_stages",
                K.NumStages ? json::Value(*K.NumStages) : json::Value(nullptr));
    J.attribute("signature",
                K.Signature ? json::Value(*K.Signature) : json::Value(nullptr));
    J.attribute("tiles",
                K.Tiles ? json::Value(*K.Tiles) : json::Value(nullptr));
  });
}

void gateResult(json::OStream &J, const ExprResult &E) {
  J.objectBegin();
  J.attribute("value", E.holds()                         ? "true"
                       : E.T == ExprResult::Truth::False ? "false"
                                                         : "unknown");
  J.attribute("why_unknown", orNull(E.WhyUnknown));
  J.attributeArray("metrics", [&] {
    for (const auto &[Name, V] : E.Used)
      J.object([&] {
        J.attribute("metric", Name);
        J.attribute("value",
                    V.Value ? json::Value(*V.Value) : json::Value(nullptr));
        J.attribute("stage", orNull(V.Stage));
        if (!V.Value)
          J.attribute("why_unknown", V.WhyUnknown);
      });
  });
  J.objectEnd();
}

void findings(json::OStream &J, const DiffReport &R, StringRef Key,
              ArrayRef<CheckFinding> Fs) {
  J.attributeArray(Key, [&] {
    for (const CheckFinding &F : Fs)
      J.object([&] {
        J.attribute("state", R.States[F.State]->Label);
        J.attribute("change", F.Change);
        J.attribute("check", F.CheckId);
        J.attribute("level", F.Level);
        J.attribute("message", F.Message);
        J.attribute("kernel", F.Kernel);
        J.attribute("dir", F.Dir);
        J.attribute("file", F.File);
        J.attribute("line", F.Line);
        J.attribute("column", F.Column);
        J.attribute("source", orNull(F.Source));
      });
  });
}

/// The kernel in each state: its match, its folder, how it was paired.
void kernelStates(json::OStream &J, const DiffReport &R, const KernelDiff &D) {
  J.attributeArray("states", [&] {
    for (size_t S = 0; S < D.States.size(); ++S) {
      const KernelInState &K = D.States[S];
      J.object([&] {
        J.attribute("label", R.States[S]->Label);
        J.attribute("status", matchStatusName(K.Status));
        J.attribute("dir", K.Summary ? json::Value(K.Summary->K->Dir)
                                     : json::Value(nullptr));
        if (K.Status == MatchStatus::Ambiguous)
          J.attributeArray("candidates", [&] {
            for (const KernelSummary *C : K.Candidates)
              J.value(C->K->Dir);
          });
        if (K.Status == MatchStatus::Matched) {
          J.attribute("pairing", matchHowName(K.How));
          J.attributeArray("configDifferences", [&] {
            for (const KeyDifference &X : K.Differences)
              J.object([&] {
                J.attribute("field", X.Field);
                J.attribute("base", X.Base);
                J.attribute("state", X.Head);
              });
          });
        }
      });
    }
  });
}

/// Family counts per stage, and the opcodes that moved most.
void kernelCounts(json::OStream &J, const DiffReport &R, const KernelDiff &D) {
  std::vector<CountRow> Families = familyRows(R.Families, D);
  J.attributeObject("counts", [&] {
    for (Isa I : {Isa::PTX, Isa::SASS}) {
      bool Has =
          any_of(Families, [&](const CountRow &C) { return C.Stage == I; });
      if (!Has)
        continue;
      J.attributeObject(isaName(I), [&] {
        J.attribute("changed", D.countsChanged(I));
        J.attributeArray("held_constant", [&] {
          for (const std::string &F : D.Constant[unsigned(I)])
            J.value(F);
        });
        J.attributeObject("families", [&] {
          for (const CountRow &C : Families)
            if (C.Stage == I)
              J.attributeObject(C.Name, [&] { countArrays(J, C); });
        });
      });
    }
  });
  J.attributeArray("moved_opcodes", [&] {
    for (const CountRow &C : D.MovedOpcodes)
      J.object([&] {
        J.attribute("stage", isaName(C.Stage));
        J.attribute("opcode", C.Name);
        countArrays(J, C);
      });
  });
}

void ttgirSite(json::OStream &J, StringRef State, const TtgirOpSite &Site) {
  J.object([&] {
    J.attribute("state", State);
    J.attribute("file", Site.File);
    J.attribute("line", Site.Line);
    J.attribute("column", Site.Column);
    J.attribute("source", orNull(Site.Source));
    J.attribute("type", orNull(Site.Type));
    J.attribute("cost", orNull(Site.Cost));
    J.attribute("text", Site.Text);
    J.attribute("source_text", orNull(Site.SourceText));
  });
}

/// The TTGIR ops added or removed, per loop, with their sites.
void ttgirChanges(json::OStream &J, const DiffReport &R, const KernelDiff &D) {
  J.attributeArray("ttgir", [&] {
    for (const TtgirChange &C : D.Ttgir)
      J.object([&] {
        J.attribute("loop", C.Loop);
        J.attribute("loop_source_text", orNull(C.LoopSourceText));
        optionalArray(J, "loop_line", C.LoopLine);
        J.attribute("op", C.Group.Op);
        J.attribute("layouts", C.Group.Layouts);
        J.attribute("src", orNull(C.Group.Src));
        J.attribute("dst", orNull(C.Group.Dst));
        optionalArray(J, "count", C.Counts);
        J.attributeArray("sites", [&] {
          for (size_t S = 0; S < C.Sites.size(); ++S)
            for (const TtgirOpSite &Site : C.Sites[S])
              ttgirSite(J, R.States[S]->Label, Site);
        });
      });
  });
}

void kernel(json::OStream &J, const DiffReport &R, const KernelDiff &D) {
  J.objectBegin();
  J.attribute("name", D.Name);
  key(J, D.key());
  J.attribute("changed", D.Changed);
  kernelStates(J, R, D);
  kernelCounts(J, R, D);
  ttgirChanges(J, R, D);
  J.attributeObject("resources", [&] {
    for (const ResourceRow &Row : resourceRows(D))
      optionalArray(J, Row.Name, Row.Values);
  });
  findings(J, R, "checks", D.Checks);
  J.attributeArray("gates", [&] {
    for (const GateResult &G : D.Gates)
      J.object([&] {
        J.attribute("expr", G.Expr);
        J.attributeArray("results", [&] {
          for (const auto &E : G.Results)
            E ? gateResult(J, *E) : J.value(nullptr);
        });
      });
  });
  J.objectEnd();
}

void unmatched(json::OStream &J, const DiffReport &R,
               const UnmatchedKernel &U) {
  J.objectBegin();
  J.attribute("state", R.States[U.State]->Label);
  J.attribute("name", U.Summary->K->Name);
  J.attribute("dir", U.Summary->K->Dir);
  key(J, U.Summary->Key);
  if (U.Status == MatchStatus::Ambiguous)
    J.attributeArray("candidates", [&] {
      for (const KernelSummary *C : U.Candidates)
        J.value(C->K->Dir);
    });
  J.objectEnd();
}

} // namespace

void writeDiffJson(raw_ostream &OS, const DiffReport &R) {
  json::OStream J(OS, 1);
  J.objectBegin();
  J.attribute("version", 1);
  J.attributeArray("states", [&] {
    for (const StateSummary *S : R.States)
      J.object([&] {
        J.attribute("label", S->Label);
        J.attribute("path", S->Path);
        J.attribute("kernels", uint64_t(S->Kernels.size()));
      });
  });
  J.attributeArray("families", [&] {
    for (const std::string &F : R.Families)
      J.value(F);
  });
  J.attributeArray("kernels", [&] {
    for (const KernelDiff &D : R.Kernels)
      kernel(J, R, D);
  });
  J.attributeArray("appeared", [&] {
    for (const UnmatchedKernel &U : R.Appeared)
      unmatched(J, R, U);
  });
  J.attributeArray("ambiguous", [&] {
    for (const UnmatchedKernel &U : R.Ambiguous)
      unmatched(J, R, U);
  });
  J.attributeObject("checks", [&] {
    J.attribute("ran", R.ChecksRan);
    J.attributeArray("enabled", [&] {
      for (const std::string &C : R.EnabledChecks)
        J.value(C);
    });
    findings(J, R, "unmatched_kernels", R.OtherChecks);
  });
  J.attributeObject("gate", [&] {
    J.attributeArray("exprs", [&] {
      for (const std::string &E : R.GateExprs)
        J.value(E);
    });
    J.attributeArray("held", [&] {
      for (const auto &[K, S] : R.GateHeld)
        J.object([&] {
          J.attribute("kernel", R.Kernels[K].Name);
          J.attribute("dir", R.Kernels[K].States[S].Summary->K->Dir);
          J.attribute("state", R.States[S]->Label);
        });
    });
  });
  J.attributeArray("problems", [&] {
    for (const std::string &P : R.Problems)
      J.value(P);
  });
  J.objectEnd();
  OS << "\n";
}

} // namespace gestell::driver
