//===- DiscoveryTest.cpp - Finding the kernels of a real Triton cache -----===//
//
// tests/corpus/triton-3.6.0/caches/sm90 is Triton's own cache layout:
// <base32 hash>/ folders with __grp__<name>.json files that list absolute
// paths on the machine that compiled them.
//
//===----------------------------------------------------------------------===//
#include "gestell/Bundle.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace gestell;
using namespace llvm;

namespace {

std::string corpus(StringRef Rel) {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "triton-3.6.0", Rel);
  return std::string(P);
}

TEST(Discovery, Sm90Cache) {
  Discovery D = discoverKernels({corpus("caches/sm90")});
  EXPECT_TRUE(D.Problems.empty());
  std::vector<std::string> Names;
  for (const Kernel &K : D.Kernels) {
    SCOPED_TRACE(K.Dir);
    Names.push_back(K.Name);
    StringRef Folder = sys::path::filename(K.Dir);
    EXPECT_EQ(Folder.size(), 52u); // base32 of a SHA-256
    ASSERT_TRUE(K.Meta);
    // The metadata hash is hex and is not the folder name.
    EXPECT_EQ(K.Meta->Hash.size(), 64u);
    EXPECT_TRUE(all_of(K.Meta->Hash, [](char C) { return isHexDigit(C); }));
    EXPECT_NE(StringRef(K.Meta->Hash).upper(), Folder.str());
    EXPECT_EQ(K.target(), "cuda:90");
    for (Stage S : {Stage::Source, Stage::TTIR, Stage::TTGIR, Stage::PTX,
                    Stage::Cubin, Stage::Metadata}) {
      ASSERT_TRUE(K.has(S)) << stageName(S).str();
      EXPECT_EQ(sys::path::parent_path(K.path(S)), K.Dir);
    }
    EXPECT_FALSE(K.has(Stage::SASS));
  }
  EXPECT_EQ(Names,
            (std::vector<std::string>{"attn_fwd", "softmax_rows", "attn_fwd",
                                      "matmul", "tma_matmul", "vadd"}));
}

TEST(Discovery, GroupFilePathsAreNeverFollowed) {
  // A cache entry whose __grp__ file names the full set of stages at
  // absolute paths that exist (the corpus bundle), while the folder itself
  // holds only the cubin and metadata.
  SmallString<128> Root;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("gestell-grp", Root));
  std::string Entry =
      (Root + "/ZJB2DEFNHVC6WVNDGZ4RGLPTOVKYYT4TQI37JFFETRUMDMCWWR5A").str();
  ASSERT_FALSE(sys::fs::create_directories(Entry));
  std::string Bundle = corpus("bundles/sm90/vadd");
  for (StringRef Ext : {".cubin", ".json"})
    ASSERT_FALSE(sys::fs::copy_file(Bundle + "/vadd" + Ext.str(),
                                    Entry + "/vadd" + Ext.str()));
  {
    std::error_code EC;
    raw_fd_ostream OS(Entry + "/__grp__vadd.json", EC);
    ASSERT_FALSE(EC);
    OS << "{\"child_paths\": {";
    bool First = true;
    for (StringRef Ext : {".ptx", ".ttgir", ".sass", ".cubin", ".json"}) {
      OS << (First ? "" : ", ") << "\"vadd" << Ext << "\": \"" << Bundle
         << "/vadd" << Ext << "\"";
      First = false;
    }
    OS << "}}";
  }
  Discovery D = discoverKernels({std::string(Root)});
  ASSERT_EQ(D.Kernels.size(), 1u);
  const Kernel &K = D.Kernels[0];
  EXPECT_EQ(K.Name, "vadd");
  EXPECT_EQ(K.Dir, Entry);
  EXPECT_TRUE(K.has(Stage::Cubin));
  EXPECT_TRUE(K.has(Stage::Metadata));
  EXPECT_FALSE(K.has(Stage::PTX));
  EXPECT_FALSE(K.has(Stage::TTGIR));
  EXPECT_FALSE(K.has(Stage::SASS));
  for (unsigned I = 0; I < NumStages; ++I) {
    if (K.has(Stage(I))) {
      EXPECT_TRUE(K.path(Stage(I)).starts_with(Entry))
          << K.path(Stage(I)).str();
    }
  }
  sys::fs::remove_directories(Root);
}

TEST(Discovery, ProjectFilesAreNotKernels) {
  // A folder a project shares with its kernels: JSON that mentions
  // "target" without being Triton's (a tsconfig.json, a list of records, a
  // JSON schema, text that does not parse, a name and warp count with no
  // Triton version or target, a file above 1 MiB) and a Sass stylesheet
  // are no kernels and no errors, nor are a lone .source or .llir; a lone
  // metadata file that names its Triton or its target, and a lone
  // disassembly listing, are kernels.
  SmallString<128> Root;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("gestell-json", Root));
  auto Write = [&](StringRef Name, StringRef Text) {
    std::error_code EC;
    raw_fd_ostream OS((Root + "/" + Name).str(), EC);
    ASSERT_FALSE(EC);
    OS << Text;
  };
  Write("tsconfig.json",
        R"({"compilerOptions": {"target": "es2017", "strict": true}})");
  Write("targets.json", R"([{"target": "x86_64", "name": "a"}])");
  Write("schema.json",
        R"({"properties": {"target": {"type": "string"}}, "name": "s"})");
  Write("cut.json", R"({"triton_version": "3.6.0", "target": {"backend")");
  Write("v3.json", R"({"name": "v3", "target": {"backend": "cuda", )"
                   R"("arch": 90, "warp_size": 32}, "num_warps": 4})");
  Write("tagged.json", R"({"name": "tagged", "triton_version": "3.6.0"})");
  Write("warps.json", R"({"name": "w", "num_warps": 8, "num_stages": 3})");
  Write("main.sass", "$primary: #333\nbody\n  color: $primary\n");
  // An apt source list, another compiler's LLVM IR, and the two together:
  // no kernel (gestell reads neither alone).
  Write("debian.source", "Types: deb\nURIs: http://deb.debian.org/debian\n");
  Write("model.llir", "define i32 @main() {\n  ret i32 0\n}\n");
  Write("pair.source", "x\n");
  Write("pair.llir", "y\n");
  // A .source beside Triton's metadata is a kernel (a cache entry that
  // kept only those).
  Write("tagged.source", "#loc = loc(\"k.py\":1:0)\n");
  // Metadata in form, but a dataset's size: not parsed, not a kernel.
  Write("big.json", R"({"triton_version": "3.6.0", "rows": ")" +
                        std::string(1 << 20, 'x') + "\"}");
  ASSERT_FALSE(sys::fs::copy_file(corpus("bundles/sm90/vadd/vadd.sass"),
                                  Root + "/listing.sass"));
  Discovery D = discoverKernels({std::string(Root)});
  EXPECT_TRUE(D.Problems.empty());
  std::vector<std::string> Names;
  for (const Kernel &K : D.Kernels)
    Names.push_back(K.Name);
  llvm::sort(Names);
  EXPECT_EQ(Names, (std::vector<std::string>{"listing", "tagged", "v3"}));
  sys::fs::remove_directories(Root);
}

} // namespace
