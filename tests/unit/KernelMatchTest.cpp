//===- KernelMatchTest.cpp - Which kernel of one build is which -----------===//
#include "KernelMatch.h"

#include <gtest/gtest.h>

using namespace gestell::driver;

namespace {

MatchKey key(std::string Hash, std::optional<uint64_t> Program = {},
             std::string Toolchain = "") {
  MatchKey K;
  K.Name = "triton_mm";
  K.Target = "cuda:90";
  K.NumWarps = 4;
  K.NumStages = 3;
  K.Signature = "(!tt.ptr<bf16>, !tt.ptr<bf16>)";
  K.Tiles = "64x32xbf16 * 32x64xbf16";
  K.Hash = internKeyText(Hash);
  K.Program = Program;
  K.Toolchain = internKeyText(Toolchain);
  return K;
}

TEST(ProgramDigest, LeavesLocationsOut) {
  const char *A = "#loc = loc(\"/tmp/a/cxyz.py\":18:0)\n"
                  "module {\n"
                  "  %0 = arith.constant 64 : i32 loc(#loc3)\n"
                  "  tt.func @k(%x: i32 loc(\"x\"(#loc))) {\n"
                  "}\n"
                  "#loc3 = loc(callsite(#loc1 at #loc2))\n";
  const char *B = "#loc = loc(\"/home/ci/b/cxyz.py\":18:0)\n"
                  "module {\n"
                  "  %0 = arith.constant 64 : i32 loc(#loc7)\n"
                  "  tt.func @k(%x: i32 loc(\"x(\\\"(\"(#loc))) {\n"
                  "}\n";
  EXPECT_EQ(programDigest(A), programDigest(B));
  // A constexpr that differs (BLOCK_K 64 vs 32) is another program.
  std::string C = A;
  C.replace(C.find("64"), 2, "32");
  EXPECT_NE(programDigest(A), programDigest(C));
  // Only the word loc( is a location: local_alloc( is not.
  EXPECT_NE(programDigest("%a = ttg.local_alloc(%b)\n"),
            programDigest("%a = ttg.local_alloc\n"));
}

TEST(MatchKernels, SameCompileFirst) {
  // Four autotune candidates whose keys agree (they differ in GROUP_M):
  // the hash says which is which, whatever the order.
  std::vector<MatchKey> Base = {key("h1"), key("h2"), key("h3")};
  std::vector<MatchKey> Head = {key("h3"), key("h1"), key("h2")};
  Matching M = matchKernels(Base, Head);
  EXPECT_EQ(M.HeadMatch[0], 2u);
  EXPECT_EQ(M.HeadMatch[1], 0u);
  EXPECT_EQ(M.HeadMatch[2], 1u);
}

TEST(MatchKernels, SameProgramThenSameToolchain) {
  // Another Triton (other hashes): the program digest decides, and of two
  // builds of one program (Triton's ptxas and CUDA's), the same PTX version.
  std::vector<MatchKey> Base = {key("a1", 7, "9.0"), key("a2", 7, "8.7"),
                                key("a3", 8, "9.0")};
  std::vector<MatchKey> Head = {key("b1", 8, "9.0"), key("b2", 7, "8.7"),
                                key("b3", 7, "9.0")};
  Matching M = matchKernels(Base, Head);
  EXPECT_EQ(M.HeadMatch[0], 2u);
  EXPECT_EQ(M.HeadMatch[1], 1u);
  EXPECT_EQ(M.HeadMatch[2], 0u);
}

TEST(MatchKernels, NothingGuessedWithoutIdentity) {
  // Keys that agree and nothing else known: ambiguous, both ways.
  std::vector<MatchKey> Base = {key("a1"), key("a2")};
  std::vector<MatchKey> Head = {key("b1"), key("b2")};
  Matching M = matchKernels(Base, Head);
  EXPECT_FALSE(M.HeadMatch[0]);
  EXPECT_EQ(M.HeadCandidates[0].size(), 2u);
  EXPECT_EQ(M.BaseCandidates[1].size(), 2u);
}

TEST(MatchKernels, SurerPairLeavesTheOtherBuildUnmatched) {
  // The base's own compile is in the head with a second build of it: the
  // same compile matches, and the second build has no candidate left (it
  // appeared).
  std::vector<MatchKey> Base = {key("h1")};
  std::vector<MatchKey> Head = {key("hx"), key("h1")};
  Matching M = matchKernels(Base, Head);
  EXPECT_EQ(M.HeadMatch[1], 0u);
  EXPECT_FALSE(M.HeadMatch[0]);
  EXPECT_TRUE(M.HeadCandidates[0].empty());
}

TEST(MatchKernels, CandidatesAreThoseOfMostAffinityOnEachSide) {
  // Two copies of compile h1 on each side, and kernels whose keys agree
  // but that share no compile: each kernel's candidates are the kernels it
  // has the most affinity with, all compatible ones where it has none.
  std::vector<MatchKey> Base = {key("h1"), key("h1"), key("h2"), key("h3")};
  std::vector<MatchKey> Head = {key("h1"), key("h1"), key("hx")};
  Matching M = matchKernels(Base, Head);
  for (unsigned H : {0u, 1u}) {
    EXPECT_FALSE(M.HeadMatch[H]);
    EXPECT_EQ(M.HeadCandidates[H], (std::vector<unsigned>{0, 1}));
  }
  EXPECT_EQ(M.HeadCandidates[2], (std::vector<unsigned>{0, 1, 2, 3}));
  for (unsigned B : {0u, 1u})
    EXPECT_EQ(M.BaseCandidates[B], (std::vector<unsigned>{0, 1}));
  for (unsigned B : {2u, 3u})
    EXPECT_EQ(M.BaseCandidates[B], (std::vector<unsigned>{0, 1, 2}));
}

} // namespace
