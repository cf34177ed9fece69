//===- KernelMetricsTest.cpp - Per-kernel metrics and the expression gate -===//
//
// Metrics collected from the real fixtures through KernelView, and the
// issue's gate expression evaluated over them: it must hold for the
// reference regression (8 warps, conversion staged through shared memory)
// and not for the baseline against itself.
//
//===----------------------------------------------------------------------===//
#include "gestell/KernelMetrics.h"
#include "gestell/Bundle.h"
#include "gestell/Expr.h"

#include "CorpusFiles.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace gestell;
using namespace llvm;

namespace {

std::string fixture(StringRef Rel) {
  return std::string(GESTELL_TEST_CORPUS) + "/../fixtures/" + Rel.str();
}

/// The one kernel under a fixture folder, with its metrics.
struct Collected {
  Kernel K;
  KernelMetrics M;
};

Collected collect(StringRef Rel) {
  Discovery D = discoverKernels({fixture(Rel)});
  EXPECT_EQ(D.Kernels.size(), 1u) << Rel.str();
  Collected C{D.Kernels.front(), {}};
  KernelView V(C.K);
  C.M = collectKernelMetrics(V, FamilyTable::builtin());
  return C;
}

double value(const KernelMetricProvider &P, StringRef Text) {
  Expected<Expr> E = Expr::parse(Text, FamilyTable::builtin());
  EXPECT_TRUE(static_cast<bool>(E));
  if (!E) {
    consumeError(E.takeError());
    return -1;
  }
  ExprResult R = E->evaluate(P);
  EXPECT_TRUE(R.Number.has_value()) << Text.str() << ": " << R.WhyUnknown;
  return R.Number.value_or(-1);
}

ExprResult gate(const KernelMetricProvider &P, StringRef Text) {
  Expected<Expr> E = Expr::parseCondition(Text, FamilyTable::builtin());
  EXPECT_TRUE(static_cast<bool>(E));
  if (!E) {
    consumeError(E.takeError());
    return {};
  }
  return E->evaluate(P);
}

constexpr StringRef IssueGate =
    "head.staging.loop + head.shared.loop > base.staging.loop + "
    "base.shared.loop and head.sync.loop > base.sync.loop and "
    "head.tensor.loop == base.tensor.loop and head.ptx.tmem.loop == "
    "base.ptx.tmem.loop";

} // namespace

TEST(KernelMetricsTest, CollectsEveryStageOfAFixture) {
  Collected C = collect("sm100-attn-tmem-w8/baseline");
  ASSERT_TRUE(C.M.Ptx && C.M.Sass && C.M.Resources);
  EXPECT_TRUE(C.M.Problems.empty());
  EXPECT_EQ(C.M.CubinTarget, "sm_100a");
  ASSERT_TRUE(C.M.SharedDynamic.has_value());
  EXPECT_EQ(C.M.SharedDynamic, C.K.Meta->Shared);
  // Every instruction is in one family or in "other".
  uint64_t Sum = C.M.Sass->Other.Total;
  for (const Count &F : C.M.Sass->Families)
    Sum += F.Total;
  EXPECT_EQ(Sum, C.M.Sass->Instructions.Total);
  EXPECT_EQ(defaultMetricStage(C.M), Isa::SASS);
}

TEST(KernelMetricsTest, ProviderReadsFamiliesOpcodesAndResources) {
  Collected Base = collect("sm100-attn-tmem-w8/baseline");
  Collected Head = collect("sm100-attn-tmem-w8/regressed");
  KernelMetricProvider P(Head.M, &Base.M, "attn_fwd");
  const FamilyTable &T = FamilyTable::builtin();
  unsigned Sync = *T.indexOf("sync");
  // Bare metrics read SASS (both kernels have it) and the head.
  EXPECT_EQ(value(P, "sync.loop"), Head.M.Sass->Families[Sync].InLoops);
  EXPECT_EQ(value(P, "base.ptx.sync"), Base.M.Ptx->Families[Sync].Total);
  // op("BAR.SYNC") is every BAR.SYNC variant; sum them independently.
  double BarSync = 0;
  for (const OpcodeCount &E : Head.M.Sass->Opcodes)
    if (E.Opcode.starts_with("BAR.SYNC"))
      BarSync += E.N.InLoops;
  EXPECT_EQ(value(P, "head.op(\"BAR.SYNC\").loop"), BarSync);
  // Barriers up in the loop, in both stages; tensor-core work unchanged.
  EXPECT_GT(value(P, "op(\"BAR.SYNC\").loop - base.op(\"BAR.SYNC\").loop"), 0);
  EXPECT_GT(value(P, "op(\"bar.sync\").loop - base.op(\"bar.sync\").loop"), 0);
  EXPECT_EQ(value(P, "op(\"UTCHMMA\").loop - base.op(\"UTCHMMA\").loop"), 0);
  EXPECT_EQ(value(P, "ptx.tmem.loop - base.ptx.tmem.loop"), 0);
  EXPECT_EQ(value(P, "registers"), Head.M.Resources->Registers);
  EXPECT_EQ(value(P, "base.shared_dynamic"), *Base.K.Meta->Shared);
}

TEST(KernelMetricsTest, TheGateHoldsForTheRegressionOnly) {
  Collected Base = collect("sm100-attn-tmem-w8/baseline");
  Collected Regressed = collect("sm100-attn-tmem-w8/regressed");
  ExprResult R =
      gate(KernelMetricProvider(Regressed.M, &Base.M, "attn_fwd"), IssueGate);
  EXPECT_TRUE(R.holds());
  EXPECT_EQ(R.Used.size(), 10u) << R.WhyUnknown;
  EXPECT_EQ(R.Used[0].first, "head.staging.loop");
  EXPECT_EQ(R.Used[0].second.Stage, "sass");
  EXPECT_EQ(
      gate(KernelMetricProvider(Base.M, &Base.M, "attn_fwd"), IssueGate).T,
      ExprResult::Truth::False);
}

TEST(KernelMetricsTest, MissingStagesAndBaselinesAreUnknown) {
  Collected Head = collect("sm100-attn-tmem-w8/regressed");
  KernelMetricProvider NoBase(Head.M, nullptr, "attn_fwd");
  ExprResult R = gate(NoBase, "head.staging > base.staging");
  EXPECT_EQ(R.T, ExprResult::Truth::Unknown);
  EXPECT_EQ(R.WhyUnknown,
            "base.staging: no baseline kernel matches 'attn_fwd'");

  KernelMetrics NoSass = Head.M;
  NoSass.Sass.reset();
  NoSass.Missing.push_back({"sass", "no nvdisasm"});
  KernelMetricProvider P(NoSass, &Head.M, "attn_fwd");
  // Bare metrics fall back to PTX for both sides when one lacks SASS.
  EXPECT_EQ(defaultMetricStage(NoSass, &Head.M), Isa::PTX);
  EXPECT_TRUE(gate(P, "head.staging == base.staging").holds());
  ExprResult S = gate(P, "sass.staging > 0");
  EXPECT_EQ(S.WhyUnknown, "head.sass.staging: the kernel has no SASS: no "
                          "nvdisasm");
}

TEST(KernelMetrics, ArchSuffixWhenTheElfFlagsDoNotSayIt) {
  // CUDA 13's ptxas writes the same ELF flags for sm_90 and sm_90a.
  CubinInfo C;
  C.SmArch = 90;
  KernelMetadata Json;
  Json.Target = "cuda:90";
  ArchResolution A = resolveArch(C, "sm_90a", nullptr);
  EXPECT_EQ(A.Arch, "sm_90a");
  EXPECT_EQ(A.From, "ptx");
  A = resolveArch(C, "sm_90", &Json);
  EXPECT_EQ(A.Arch, "sm_90"); // the PTX says plain sm_90
  A = resolveArch(C, "", &Json);
  EXPECT_EQ(A.Arch, "sm_90a"); // Triton compiles 90+ for the a variant
  EXPECT_EQ(A.From, "json");
  A = resolveArch(C, "", nullptr);
  EXPECT_EQ(A.Arch, "sm_90");
  EXPECT_TRUE(A.SuffixUnknown);
  C.ArchSpecific = true;
  EXPECT_EQ(resolveArch(C, "", nullptr).Arch, "sm_90a");
  C.SmArch = 80;
  C.ArchSpecific = false;
  A = resolveArch(C, "", nullptr);
  EXPECT_EQ(A.Arch, "sm_80"); // no a variant below sm_90
  EXPECT_FALSE(A.SuffixUnknown);
}

TEST(KernelMetrics, ArchOfAKernelFromItsPtxWhenTheCubinLeavesItOpen) {
  std::string Dir = test::makeTempDir("gestell-arch");
  ASSERT_FALSE(Dir.empty());
  std::string Ptx = Dir + "/k.ptx";
  ASSERT_TRUE(test::writeFile(Ptx, "//\n.version 8.7\n.target sm_90a\n"
                                   ".address_size 64\n"));
  Kernel K;
  K.Name = "k";
  K.setPath(Stage::PTX, Ptx);
  CubinInfo C;
  C.SmArch = 90;
  ArchResolution A = resolveArch(C, K);
  EXPECT_EQ(A.Arch, "sm_90a");
  EXPECT_EQ(A.From, "ptx");
  // Flags that say it: the PTX is not needed (it is gone).
  ASSERT_FALSE(sys::fs::remove(Ptx));
  C.ArchSpecific = true;
  A = resolveArch(C, K);
  EXPECT_EQ(A.Arch, "sm_90a");
  EXPECT_EQ(A.From, "cubin");
  C.ArchSpecific = false;
  A = resolveArch(C, K); // left open, and the PTX cannot be read
  EXPECT_EQ(A.Arch, "sm_90");
  EXPECT_TRUE(A.SuffixUnknown);
  sys::fs::remove(Dir);
}
