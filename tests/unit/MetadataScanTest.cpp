//===- MetadataScanTest.cpp - The one-pass read of a kernel's .json -------===//
//
// scanMetadataMembers (sdk/lib/readers/MetadataScan.cpp) must read every
// real .json of the corpus, and read it as a whole parse with
// llvm::json::parse does; outside its subset of JSON it must give up, so
// that the whole parse reads the text (or locates its error).
//
//===----------------------------------------------------------------------===//
#include "CorpusFiles.h"

#include "gestell/Bundle.h"
#include "readers/JsonInput.h"

#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace gestell;
using namespace llvm;

namespace {

/// What a whole parse reads from Text; nullopt when it does not parse or is
/// not an object.
std::optional<KernelMetadata> wholeParse(StringRef Text) {
  Expected<json::Value> V = json::parse(Text);
  if (!V) {
    consumeError(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return std::nullopt;
  return kernelMetadataFromJson(*O);
}

/// Whether the scan reads Text; where it does, it reads what a whole parse
/// reads.
bool scansAsWhole(StringRef Text) {
  std::optional<json::Object> O = scanMetadataMembers(Text);
  if (!O)
    return false;
  std::optional<KernelMetadata> Whole = wholeParse(Text);
  EXPECT_TRUE(Whole.has_value()) << Text.str();
  if (Whole) {
    EXPECT_TRUE(kernelMetadataFromJson(*O) == *Whole) << Text.str();
  }
  return true;
}

TEST(MetadataScan, ReadsEveryCorpusJsonAsAWholeParse) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (const char *Root :
       {GESTELL_TEST_CORPUS, GESTELL_TEST_CORPUS "/../fixtures"})
    for (sys::fs::recursive_directory_iterator It(Root, EC), E; It != E && !EC;
         It.increment(EC)) {
      StringRef Name = sys::path::filename(It->path());
      if (Name.ends_with(".json") && !Name.starts_with("__grp__") &&
          It->type() == sys::fs::file_type::regular_file)
        Files.push_back(It->path());
    }
  size_t Kernels = 0;
  for (const std::string &F : Files) {
    std::string Text = test::readFile(F);
    std::optional<KernelMetadata> Whole = wholeParse(Text);
    if (!Whole || Whole->Name.empty())
      continue; // not a kernel's metadata (a report, a config)
    ++Kernels;
    EXPECT_TRUE(scansAsWhole(Text)) << F;
  }
  EXPECT_GE(Kernels, 50u);
}

TEST(MetadataScan, ReadsThePlainSubset) {
  EXPECT_TRUE(scansAsWhole(R"({"name": "k", "num_warps": 4, "shared": 0})"));
  // A later duplicate wins, as in json::parse.
  EXPECT_TRUE(scansAsWhole(R"({"num_warps": 4, "num_warps": 8})"));
  EXPECT_EQ(kernelMetadataFromJson(
                *scanMetadataMembers(R"({"num_warps": 4, "num_warps": 8})"))
                .NumWarps,
            8);
  EXPECT_TRUE(scansAsWhole(R"({"name": "a\"b\\c\/d\n", "hash": ""})"));
  EXPECT_TRUE(scansAsWhole(
      R"({"x": [1.5e3, -0.25, 01, 2E+2, true, false, null, {}, []]})"));
  EXPECT_TRUE(scansAsWhole(R"({"target": {"backend": "cuda", "arch": 90}})"));
  EXPECT_TRUE(scansAsWhole(
      R"j({"target": "GPUTarget(backend='cuda', arch=100, warp_size=32)"})j"));
  EXPECT_TRUE(
      scansAsWhole(R"j({"src_constants": {"(4,)": 1024, "(5,)": "x"}})j"));
  EXPECT_TRUE(scansAsWhole(R"({"maxnreg": null, "tmem_size": 1e400})"));
  // Read members' scalars are made without json::parse; past 64 bits, with
  // a fraction or an escape they go through it: either way as it reads.
  EXPECT_TRUE(
      scansAsWhole(R"({"num_warps": 9223372036854775807, )"
                   R"("shared": 18446744073709551615, "num_ctas": -0, )"
                   R"("maxnreg": 007, "tmem_size": 2.0, "num_stages": )"
                   R"(3e0, "name": "k\/l", "hash": "", "arch": true})"));
  EXPECT_EQ(kernelMetadataFromJson(
                *scanMetadataMembers(R"({"num_warps": 8, "name": "mm"})"))
                .Name,
            "mm");
  EXPECT_TRUE(scansAsWhole(" \t\r\n{}\n "));
}

TEST(MetadataScan, GivesUpOutsideIt) {
  // One line per kind of input (clang-format would put each on its own).
  // clang-format off
  for (StringRef Text : {
           R"({"name": "a\u0062"})",   // \u escape: the whole parse reads it
           "{\"name\": \"\xc3\xa9\"}", // UTF-8
           R"({"x": 1.})",             // json::parse reads it, the scan not
           R"({"x": .5})", R"({"x": -})", R"({"x": 1e})", R"({"x": 1.2.3})",
           R"([1])", R"("s")", "", "   ",                     // not objects
           R"({"a": 1} x)", R"({"a": [1, 2,]})", R"({"a": 1,})", // syntax
           R"({"a" 1})", R"({a: 1})", R"({"a": tru})", R"({"a": nul})",
           R"({"a": "b)", "{\"a\": \"\x01\"}", R"({"a": "\x"})", "{",
       })
    EXPECT_FALSE(scanMetadataMembers(Text).has_value()) << Text.str();
  // clang-format on
  // Nesting past MaxJsonDepth is left to the whole parse, which says where.
  std::string Deep = "{\"a\": " + std::string(MaxJsonDepth, '[') +
                     std::string(MaxJsonDepth, ']') + "}";
  EXPECT_FALSE(scanMetadataMembers(Deep).has_value());
  std::string Fits = "{\"a\": " + std::string(MaxJsonDepth - 1, '[') +
                     std::string(MaxJsonDepth - 1, ']') + "}";
  EXPECT_TRUE(scansAsWhole(Fits));
}

// Random edits of a real .json, in an alphabet that makes JSON's tokens:
// whatever the scan takes, it reads as the whole parse does.
TEST(MetadataScan, RandomEditsReadAsAWholeParse) {
  const std::string Seed = test::readFile(
      GESTELL_TEST_CORPUS "/../fuzz/corpus/json/seed-vadd.json-366331");
  ASSERT_TRUE(scansAsWhole(Seed));
  // Structural characters weigh more: they make and break the syntax.
  const std::string Alphabet =
      "{}[],:\"{}[],:\"{}[],:\"\\/ \n0123456789.eE+-tfnulrsabu";
  std::mt19937 Rng(20261203);
  unsigned Taken = 0;
  for (unsigned Round = 0; Round < 20000; ++Round) {
    std::string Text = Seed;
    for (unsigned Edit = 0, N = 1 + Rng() % 3; Edit < N; ++Edit) {
      size_t At = Rng() % (Text.size() + 1);
      char C = Alphabet[Rng() % Alphabet.size()];
      switch (Rng() % 3) {
      case 0:
        Text.insert(Text.begin() + At, C);
        break;
      case 1:
        if (At < Text.size())
          Text.erase(At, 1);
        break;
      default:
        if (At < Text.size())
          Text[At] = C;
        break;
      }
    }
    Taken += scansAsWhole(Text);
  }
  // Most single edits land inside strings and still read.
  EXPECT_GT(Taken, 5000u);
}

TEST(MetadataScan, ParseKernelMetadataStillLocatesErrors) {
  Expected<KernelMetadata> M =
      parseKernelMetadata("{\"name\": \"k\",\n  \"a\": [1, 2,]}", "k.json");
  ASSERT_FALSE(bool(M));
  EXPECT_EQ(toString(M.takeError()),
            "k.json:2:15: invalid JSON metadata: invalid JSON value");
  Expected<KernelMetadata> U =
      parseKernelMetadata(R"({"name": "k\u00e9", "num_warps": 4})", "k.json");
  ASSERT_TRUE(bool(U));
  EXPECT_EQ(U->Name, "k\xc3\xa9");
  EXPECT_EQ(U->NumWarps, 4);
}

} // namespace
