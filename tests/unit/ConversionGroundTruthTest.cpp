//===- ConversionGroundTruthTest.cpp - Cost classes vs the real compiler --===//
//
// tests/fixtures/conversions/ground_truth.json holds, for every distinct
// ttg.convert_layout of the Triton 3.6.0 corpus (and the ones the fixtures
// insert), the cost class read from the PTX the real compiler produced for
// a minimal kernel doing just that conversion. The layout algebra must agree
// on every row; a disagreement is a bug in the algebra (or a row to
// re-examine from its PTX), never something to special-case.
//
//===----------------------------------------------------------------------===//
#include "gestell/Layout.h"
#include "gestell/Ttgir.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

using namespace gestell;
using namespace llvm;

namespace {

std::string fixtures(StringRef Rel) {
  return (Twine(GESTELL_TEST_CORPUS) + "/../fixtures/" + Rel).str();
}

json::Array loadRows() {
  auto Buf = MemoryBuffer::getFile(fixtures("conversions/ground_truth.json"));
  EXPECT_TRUE(bool(Buf)) << "tests/fixtures/conversions/ground_truth.json";
  if (!Buf)
    return {};
  Expected<json::Value> J = json::parse((*Buf)->getBuffer());
  EXPECT_TRUE(bool(J)) << (J ? "" : toString(J.takeError()));
  if (!J || !J->getAsArray())
    return {};
  return *J->getAsArray();
}

struct Row {
  std::string Id, Target, Src, Dst, Cost, Dtype;
  SmallVector<int64_t, 2> Shape;
  int64_t NumWarps = 0;
};

std::vector<Row> rows() {
  std::vector<Row> Out;
  for (const json::Value &V : loadRows()) {
    const json::Object *O = V.getAsObject();
    if (!O)
      continue;
    Row R;
    R.Id = O->getString("id").value_or("").str();
    R.Target = O->getString("target").value_or("").str();
    R.Src = O->getString("src").value_or("").str();
    R.Dst = O->getString("dst").value_or("").str();
    R.Cost = O->getString("cost").value_or("").str();
    R.Dtype = O->getString("dtype").value_or("").str();
    R.NumWarps = O->getInteger("num_warps").value_or(0);
    if (const json::Array *S = O->getArray("shape"))
      for (const json::Value &D : *S)
        R.Shape.push_back(D.getAsInteger().value_or(0));
    Out.push_back(std::move(R));
  }
  return Out;
}

} // namespace

TEST(ConversionGroundTruth, EveryRowAgreesWithTheCompiler) {
  std::vector<Row> Rows = rows();
  ASSERT_GE(Rows.size(), 40u);
  std::map<std::string, int> ByCost;
  std::vector<std::string> Unmodelled;
  for (const Row &R : Rows) {
    SCOPED_TRACE(R.Id);
    Expected<Layout> S = parseLayoutText(R.Src);
    ASSERT_TRUE(bool(S)) << toString(S.takeError());
    Expected<Layout> D = parseLayoutText(R.Dst);
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    if (S->K == Layout::Kind::Other || D->K == Layout::Kind::Other) {
      // A layout the algebra does not model gets no cost (and no finding).
      EXPECT_FALSE(bool(analyzeConversion(*S, *D, R.Shape)));
      Unmodelled.push_back(R.Id);
      continue;
    }
    Expected<ConversionAnalysis> A = analyzeConversion(*S, *D, R.Shape);
    ASSERT_TRUE(bool(A)) << toString(A.takeError());
    EXPECT_EQ(costName(A->Cost), R.Cost)
        << R.Src << " -> " << R.Dst << " on " << R.Shape[0] << "x"
        << R.Shape.back() << " (" << R.NumWarps << " warps)";
    ++ByCost[R.Cost];
  }
  // Only AMD's MFMA layouts (gfx950 attn_fwd: #mma -> #linear, 16
  // v_permlane, and #mma -> its dot_op, registers) are not modelled.
  EXPECT_EQ(Unmodelled,
            (std::vector<std::string>{"gfx950-w4-128x128bf16-986bb497",
                                      "gfx950-w4-128x64bf16-57060cb9"}));
  // All three classes are exercised.
  EXPECT_GT(ByCost["registers"], 0);
  EXPECT_GT(ByCost["shuffle"], 0);
  EXPECT_GT(ByCost["shared"], 0);
}

TEST(ConversionGroundTruth, CorpusConversionsAreRowsAndAgree) {
  // Through the module path: every convert_layout in tests/corpus, its
  // aliases resolved by the parser, is a row of the table (matched on
  // target, warps, shape, element type and canonical layouts) and gets the
  // row's cost.
  std::map<
      std::tuple<std::string, int64_t, std::string, std::string, std::string>,
      std::string>
      Table;
  auto Key = [](StringRef Target, int64_t Warps, ArrayRef<int64_t> Shape,
                StringRef Dtype, const Layout &S, const Layout &D) {
    std::string Sh;
    for (int64_t X : Shape)
      Sh += std::to_string(X) + "x";
    return std::make_tuple(Target.str() + "/" + Dtype.str(), Warps, Sh,
                           S.canonicalText(), D.canonicalText());
  };
  for (const Row &R : rows()) {
    Expected<Layout> S = parseLayoutText(R.Src), D = parseLayoutText(R.Dst);
    ASSERT_TRUE(S && D);
    Table[Key(R.Target, R.NumWarps, R.Shape, R.Dtype, *S, *D)] = R.Cost;
  }
  unsigned Seen = 0, Unmodelled = 0;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Twine(GESTELL_TEST_CORPUS), EC),
       End;
       It != End && !EC; It.increment(EC)) {
    if (!StringRef(It->path()).ends_with(".ttgir"))
      continue;
    auto M = parseTtgir(It->path());
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    for (const Operation *Op : (*M)->ops()) {
      if (Op->Name != "ttg.convert_layout")
        continue;
      SCOPED_TRACE(It->path() + ":" + std::to_string(Op->Line));
      const Type *ST = Op->operandType(0), *DT = Op->resultType();
      ASSERT_TRUE(ST && DT && ST->Encoding && DT->Encoding);
      Expected<Layout> S = parseLayout(*ST->Encoding, **M);
      Expected<Layout> D = parseLayout(*DT->Encoding, **M);
      ASSERT_TRUE(S && D);
      if (S->K == Layout::Kind::Other || D->K == Layout::Kind::Other) {
        // Not modelled (AMD's MFMA): EveryRowAgreesWithTheCompiler holds
        // their rows, and the algebra gives them no cost.
        EXPECT_FALSE(bool(analyzeConversion(*S, *D, ST->Shape)));
        ++Unmodelled;
        continue;
      }
      auto Found = Table.find(Key((*M)->target(), (*M)->numWarps(), ST->Shape,
                                  ST->elementName(), *S, *D));
      ASSERT_NE(Found, Table.end()) << "no ground-truth row";
      Expected<ConversionAnalysis> A = analyzeConversion(*S, *D, ST->Shape);
      ASSERT_TRUE(bool(A));
      EXPECT_EQ(costName(A->Cost), Found->second);
      ++Seen;
    }
  }
  EXPECT_GE(Seen, 70u); // 85 of the 88 conversion ops in tests/corpus
  // gfx950 attn_fwd: two ops #mma -> its dot_op (one row), one #mma -> #linear
  EXPECT_EQ(Unmodelled, 3u);
}
