//===- SameTtgirTest.cpp - Kernels whose .ttgir holds the same bytes ------===//
//
// check runs the kernels whose .ttgir holds the same bytes one after the
// other (groupBySameTtgir), each offered the previous one's parses
// (KernelView::offerParses). Groups must hold only identical texts (a file
// of the same size is told apart by content), keep job order and stay
// small enough to spread over threads; a parse is shared only where the
// bytes match.
//
//===----------------------------------------------------------------------===//
#include "SameTtgir.h"

#include "gestell/Bundle.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <deque>

using namespace gestell;
using namespace gestell::driver;
using namespace llvm;

namespace {

/// Text with its last Python file name ".py" spelled ".pz": the same size,
/// other bytes, and still a module that parses.
std::string otherPythonFile(std::string Text) {
  size_t At = Text.rfind(".py\"");
  EXPECT_NE(At, std::string::npos);
  Text[At + 2] = 'z';
  return Text;
}

class SameTtgir : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("gestell-same-ttgir", Dir));
    auto Real = MemoryBuffer::getFile(std::string(GESTELL_TEST_CORPUS) +
                                      "/../fixtures/sm90-attn-wgmma-detour/"
                                      "regressed/attn_fwd.ttgir");
    ASSERT_TRUE(static_cast<bool>(Real));
    Text = (*Real)->getBuffer().str();
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  /// A kernel named Name whose .ttgir holds Body (none when Body is null).
  Kernel &kernel(StringRef Name, const std::string *Body) {
    Kernel &K = Kernels.emplace_back();
    K.Name = Name.str();
    K.Dir = std::string(Dir);
    if (Body) {
      SmallString<128> Path(Dir);
      sys::path::append(Path, Name + ".ttgir");
      std::error_code EC;
      raw_fd_ostream OS(Path, EC);
      EXPECT_FALSE(EC);
      OS << *Body;
      K.setPath(Stage::TTGIR, Path);
    }
    return K;
  }

  SmallString<128> Dir;
  std::string Text;
  std::deque<Kernel> Kernels;
};

TEST_F(SameTtgir, GroupsHoldOnlyTheSameBytesInJobOrder) {
  std::string SameSize = otherPythonFile(Text); // same size, other bytes
  std::string Longer = Text + "\n";
  std::vector<const Kernel *> Ks;
  for (auto [Name, Body] :
       std::initializer_list<std::pair<const char *, const std::string *>>{
           {"a", &Text},
           {"b", &SameSize},
           {"c", &Longer},
           {"d", nullptr},
           {"e", &Text},
           {"f", &SameSize}})
    Ks.push_back(&kernel(Name, Body));
  DefaultThreadPool Pool(hardware_concurrency(2));
  TtgirGroups G = groupBySameTtgir(Ks, 0, Ks.size(), Pool);
  std::vector<std::vector<size_t>> Got;
  for (size_t I = 0; I < G.size(); ++I)
    Got.push_back(G.group(I).vec());
  std::vector<std::vector<size_t>> Want = {{0, 4}, {1, 5}, {2}, {3}};
  EXPECT_EQ(Got, Want);
}

TEST_F(SameTtgir, ALargeGroupIsCut) {
  std::vector<const Kernel *> Ks;
  for (unsigned I = 0; I < 2 * MaxGroupSize + 1; ++I)
    Ks.push_back(&kernel("k" + std::to_string(I), &Text));
  DefaultThreadPool Pool(hardware_concurrency(2));
  TtgirGroups G = groupBySameTtgir(Ks, 0, Ks.size(), Pool);
  ASSERT_EQ(G.size(), 3u);
  EXPECT_EQ(G.group(0).size(), MaxGroupSize);
  EXPECT_EQ(G.group(1).size(), MaxGroupSize);
  EXPECT_EQ(G.group(2).size(), 1u);
  EXPECT_EQ(G.group(2).front(), 2 * MaxGroupSize);
}

TEST_F(SameTtgir, AParseIsSharedOnlyWhereTheBytesMatch) {
  std::string SameSize = otherPythonFile(Text);
  Kernel &A = kernel("a", &Text), &B = kernel("b", &Text),
         &C = kernel("c", &SameSize);
  AnalysisOptions Opts;
  KernelView VA(A, Opts), VB(B, Opts), VC(C, Opts), VD(B, Opts);
  Expected<const TtgirModule &> MA = VA.ttgir();
  ASSERT_TRUE(static_cast<bool>(MA)) << toString(MA.takeError());
  VB.offerParses(VA);
  Expected<const TtgirModule &> MB = VB.ttgir();
  ASSERT_TRUE(static_cast<bool>(MB));
  EXPECT_EQ(&*MB, &*MA);
  EXPECT_EQ(VB.ownPaths((A.path(Stage::TTGIR) + ":7").str()),
            B.path(Stage::TTGIR).str() + ":7");
  VC.offerParses(VA);
  Expected<const TtgirModule &> MC = VC.ttgir();
  ASSERT_TRUE(static_cast<bool>(MC));
  EXPECT_NE(&*MC, &*MA);
  EXPECT_EQ(MC->text(), SameSize);
  EXPECT_EQ(VC.ownPaths(A.path(Stage::TTGIR)), A.path(Stage::TTGIR));
  // Offered a view that borrowed: the module names A's file, which is
  // what this view's texts have in place of its own.
  VD.offerParses(VB);
  Expected<const TtgirModule &> MD = VD.ttgir();
  ASSERT_TRUE(static_cast<bool>(MD));
  EXPECT_EQ(&*MD, &*MA);
  EXPECT_EQ(VD.ownPaths(A.path(Stage::TTGIR)), B.path(Stage::TTGIR));
}

} // namespace
