//===- NvdisasmTest.cpp - SASS from a cubin through the tool's cache ------===//
//
// There is no nvdisasm on the machines that run these tests, so a fake one
// stands in: a shell script that logs each call and prints the real
// `nvdisasm -c -gi` output kept beside the same cubin in tests/corpus (found
// by comparing bytes, so a cubin it does not know fails like a real
// disassembler would). The tests prove the cache keying (content hash, not
// path), that nothing is written into the bundle, and the lookup order.
//
//===----------------------------------------------------------------------===//
#include "gestell/Error.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <set>

using namespace gestell;
using namespace llvm;

namespace {

std::string corpus(StringRef Rel) {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "triton-3.6.0", Rel);
  return std::string(P);
}

std::string readAll(StringRef Path) {
  auto B = MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : std::string();
}

void writeFile(StringRef Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << Path.str();
  OS << Text;
}

/// Every file under Dir, with its size: to see that a run wrote nothing.
std::set<std::string> listing(StringRef Dir) {
  std::set<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    uint64_t Size = 0;
    sys::fs::file_size(I->path(), Size);
    Out.insert(I->path() + " " + std::to_string(Size));
  }
  return Out;
}

unsigned countLines(StringRef Path) {
  return StringRef(readAll(Path)).count('\n');
}

class Nvdisasm : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("gestell-nvdisasm", Root));
    Bundle = path("bundle");
    Cache = path("cache");
    Fake = path("bin/nvdisasm");
    Log = path("calls.log");
    ASSERT_FALSE(sys::fs::create_directories(Bundle));
    ASSERT_FALSE(sys::fs::create_directories(path("bin")));
    // A binary-only cache entry: cubin and metadata, no SASS.
    for (StringRef Kernel : {"matmul_f16/matmul", "vadd/vadd"})
      for (StringRef Ext : {".cubin", ".json"}) {
        std::string From = corpus(("bundles/sm90/" + Kernel + Ext).str());
        std::string To =
            (Bundle + "/" + sys::path::filename(Kernel) + Ext).str();
        ASSERT_FALSE(sys::fs::copy_file(From, To)) << From;
      }
    writeFile(
        Fake,
        "#!/bin/sh\n"
        "# fake nvdisasm: nvdisasm -c -gi FILE.cubin\n"
        "echo \"$*\" >> '" +
            Log +
            "'\n"
            "[ \"$1\" = -c ] && [ \"$2\" = -gi ] || { echo 'bad args' >&2; "
            "exit 2; }\n"
            "for f in '" +
            corpus("bundles") +
            "'/*/*/*.cubin; do\n"
            "  if cmp -s \"$3\" \"$f\"; then exec cat \"${f%.cubin}.sass\"; "
            "fi\n"
            "done\n"
            "echo \"nvdisasm fatal: $3 is not a cubin I know\" >&2\n"
            "exit 1\n");
    ASSERT_FALSE(sys::fs::setPermissions(
        Fake, sys::fs::all_read | sys::fs::all_exe | sys::fs::owner_write));
  }
  void TearDown() override { sys::fs::remove_directories(Root); }

  std::string path(StringRef Rel) { return (Root + "/" + Rel).str(); }

  SmallString<128> Root;
  std::string Bundle, Cache, Fake, Log;
};

TEST_F(Nvdisasm, WritesTheRealSassIntoTheCacheKeyedByContent) {
  std::set<std::string> Before = listing(Bundle);
  Expected<std::string> Sass =
      disassembleCubin(Bundle + "/matmul.cubin", Fake, Cache);
  ASSERT_TRUE(static_cast<bool>(Sass)) << toString(Sass.takeError());
  // Under the cache, named by the XXH3 (64 bits) of the cubin's bytes.
  EXPECT_TRUE(StringRef(*Sass).starts_with(Cache + "/sass/")) << *Sass;
  EXPECT_EQ(sys::path::extension(*Sass), ".sass");
  EXPECT_EQ(sys::path::stem(*Sass).size(), 16u);
  EXPECT_EQ(readAll(*Sass),
            readAll(corpus("bundles/sm90/matmul_f16/matmul.sass")));
  EXPECT_EQ(countLines(Log), 1u);
  EXPECT_EQ(listing(Bundle), Before) << "wrote into the bundle";

  // The same bytes elsewhere: the cached file, no second run.
  std::string Copy = path("elsewhere.cubin");
  ASSERT_FALSE(sys::fs::copy_file(Bundle + "/matmul.cubin", Copy));
  Expected<std::string> Again = disassembleCubin(Copy, Fake, Cache);
  ASSERT_TRUE(static_cast<bool>(Again)) << toString(Again.takeError());
  EXPECT_EQ(*Again, *Sass);
  EXPECT_EQ(countLines(Log), 1u);

  // Another cubin: another file, one more run.
  Expected<std::string> Vadd =
      disassembleCubin(Bundle + "/vadd.cubin", Fake, Cache);
  ASSERT_TRUE(static_cast<bool>(Vadd)) << toString(Vadd.takeError());
  EXPECT_NE(*Vadd, *Sass);
  EXPECT_EQ(readAll(*Vadd), readAll(corpus("bundles/sm90/vadd/vadd.sass")));
  EXPECT_EQ(countLines(Log), 2u);

  // Nothing but the two .sass files is left in the cache (no temporaries).
  unsigned Files = 0;
  for (const std::string &E : listing(Cache))
    if (StringRef(E).contains(".sass "))
      ++Files;
    else
      EXPECT_TRUE(sys::fs::is_directory(StringRef(E).rsplit(' ').first)) << E;
  EXPECT_EQ(Files, 2u);
}

TEST_F(Nvdisasm, ChangedCubinGetsNewDisassembly) {
  ASSERT_TRUE(static_cast<bool>(
      disassembleCubin(Bundle + "/matmul.cubin", Fake, Cache)));
  // Same path, other content (the vadd cubin copied over it).
  ASSERT_FALSE(
      sys::fs::copy_file(Bundle + "/vadd.cubin", Bundle + "/matmul.cubin"));
  Expected<std::string> Sass =
      disassembleCubin(Bundle + "/matmul.cubin", Fake, Cache);
  ASSERT_TRUE(static_cast<bool>(Sass)) << toString(Sass.takeError());
  EXPECT_EQ(readAll(*Sass), readAll(corpus("bundles/sm90/vadd/vadd.sass")));
  EXPECT_EQ(countLines(Log), 2u);
}

TEST_F(Nvdisasm, SameSizeAndTimeButOtherBytesIsAnotherKey) {
  // A CI cache restore can bring back other bytes under the same path, size
  // and modification time: the key is the content, never the file identity.
  std::string Checksum = path("bin/checksum-disasm");
  writeFile(Checksum, "#!/bin/sh\ncksum < \"$3\"\n");
  ASSERT_FALSE(sys::fs::setPermissions(
      Checksum, sys::fs::all_read | sys::fs::all_exe | sys::fs::owner_write));
  std::string Cubin = path("restored.cubin");
  sys::TimePoint<> When = std::chrono::system_clock::from_time_t(1700000000);
  auto Restore = [&](StringRef Bytes) {
    writeFile(Cubin, Bytes);
    int FD;
    ASSERT_FALSE(sys::fs::openFileForWrite(Cubin, FD, sys::fs::CD_OpenExisting,
                                           sys::fs::OF_Append));
    ASSERT_FALSE(sys::fs::setLastAccessAndModificationTime(FD, When));
    sys::fs::closeFile(FD);
  };
  Restore("cubin bytes, first build");
  Expected<std::string> First = disassembleCubin(Cubin, Checksum, Cache);
  ASSERT_TRUE(static_cast<bool>(First)) << toString(First.takeError());
  Restore("cubin bytes, other build");
  Expected<std::string> Second = disassembleCubin(Cubin, Checksum, Cache);
  ASSERT_TRUE(static_cast<bool>(Second)) << toString(Second.takeError());
  EXPECT_NE(*First, *Second);
  EXPECT_NE(readAll(*First), readAll(*Second));
}

TEST_F(Nvdisasm, FailureNamesTheCubinAndLeavesNoFile) {
  std::string Odd = path("odd.cubin");
  writeFile(Odd, "not what the fake knows");
  Expected<std::string> Sass = disassembleCubin(Odd, Fake, Cache);
  ASSERT_FALSE(static_cast<bool>(Sass));
  std::string Msg = toString(Sass.takeError());
  EXPECT_EQ(Msg.rfind(Odd + ": nvdisasm (" + Fake +
                          ") failed: nvdisasm "
                          "fatal: ",
                      0),
            0u)
      << Msg;
  for (const std::string &E : listing(Cache))
    EXPECT_FALSE(StringRef(E).contains(".sass") ||
                 StringRef(E).contains(".tmp") || StringRef(E).contains(".err"))
        << E;
}

TEST_F(Nvdisasm, KernelViewUsesTheCacheAndNeverTheBundle) {
  Kernel K;
  K.Name = "matmul";
  K.Dir = Bundle;
  K.setPath(Stage::Cubin, Bundle + "/matmul.cubin");
  K.setPath(Stage::Metadata, Bundle + "/matmul.json");
  std::set<std::string> Before = listing(Bundle);

  AnalysisOptions Opts;
  Opts.Nvdisasm = Fake;
  Opts.CacheDir = Cache;
  KernelView V(K, Opts);
  Expected<const SassModule &> S = V.sass();
  // Whatever the parser says, the SASS it read is the cached disassembly.
  if (!S)
    consumeError(S.takeError());
  EXPECT_TRUE(V.sassPath().starts_with(Cache + "/sass/")) << V.sassPath().str();
  EXPECT_EQ(readAll(V.sassPath()),
            readAll(corpus("bundles/sm90/matmul_f16/matmul.sass")));
  EXPECT_EQ(listing(Bundle), Before);
  EXPECT_EQ(countLines(Log), 1u);
}

TEST(KernelView, MissingSassIsMissingNotAProblemAndSaysWhy) {
  Kernel K;
  K.Name = "vadd";
  K.Dir = corpus("bundles/sm90/vadd");
  K.setPath(Stage::Cubin, K.Dir + "/vadd.cubin");
  AnalysisOptions Opts; // no nvdisasm
  Opts.NvdisasmMissing = "no nvdisasm: test";
  KernelView V(K, Opts);
  for (int Twice = 0; Twice < 2; ++Twice) {
    Expected<const SassModule &> S = V.sass();
    ASSERT_FALSE(static_cast<bool>(S));
    bool Missing = false;
    handleAllErrors(
        S.takeError(),
        [&](const MissingStage &M) {
          Missing = true;
          EXPECT_EQ(M.S, Stage::SASS);
          EXPECT_EQ(M.message(), "no sass for kernel 'vadd': no .sass file "
                                 "beside the cubin, and no nvdisasm: test");
        },
        [](const ErrorInfoBase &B) { ADD_FAILURE() << B.message(); });
    EXPECT_TRUE(Missing);
  }
  // The cubin is there: read, and the same object again.
  Expected<const CubinInfo &> C1 = V.cubin();
  ASSERT_TRUE(static_cast<bool>(C1)) << toString(C1.takeError());
  Expected<const CubinInfo &> C2 = V.cubin();
  ASSERT_TRUE(static_cast<bool>(C2));
  EXPECT_EQ(&*C1, &*C2);
  EXPECT_EQ(C1->Kernels.at(0).Registers, 30u);
  V.release();
  Expected<const PtxModule &> P = V.ptx();
  ASSERT_FALSE(static_cast<bool>(P));
  EXPECT_TRUE(P.errorIsA<MissingStage>());
  consumeError(P.takeError());
}

TEST(KernelView, BadFileErrorKeepsItsTypeWhenReplayed) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("gestell-kv", Dir));
  std::string Cubin = (Dir + "/true.cubin").str();
  ASSERT_FALSE(sys::fs::copy_file("/bin/true", Cubin));
  Kernel K;
  K.Name = "true";
  K.Dir = std::string(Dir);
  K.setPath(Stage::Cubin, Cubin);
  KernelView V(K, AnalysisOptions{});
  for (int Twice = 0; Twice < 2; ++Twice) {
    Expected<const CubinInfo &> C = V.cubin();
    ASSERT_FALSE(static_cast<bool>(C));
    EXPECT_TRUE(C.errorIsA<InputError>());
    EXPECT_NE(toString(C.takeError()).find(Cubin + ": not a cubin"),
              std::string::npos);
  }
  sys::fs::remove_directories(Dir);
}

TEST(FindNvdisasm, ExplicitMustBeExecutable) {
  Expected<NvdisasmLookup> L = findNvdisasm("/nonexistent/nvdisasm");
  ASSERT_FALSE(static_cast<bool>(L));
  EXPECT_EQ(toString(L.takeError()),
            "/nonexistent/nvdisasm: --nvdisasm: not an executable file");
  Expected<NvdisasmLookup> True = findNvdisasm("/bin/true");
  ASSERT_TRUE(static_cast<bool>(True));
  EXPECT_EQ(True->Path, "/bin/true");
  EXPECT_EQ(True->Origin, "--nvdisasm");
}

/// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const std::string &Value) : Name(Name) {
    if (const char *Old = getenv(Name))
      Saved = Old;
    setenv(Name, Value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (Saved)
      setenv(Name, Saved->c_str(), 1);
    else
      unsetenv(Name);
  }

private:
  const char *Name;
  std::optional<std::string> Saved;
};

TEST_F(Nvdisasm, FoundOnPathThenInATritonPackage) {
  {
    ScopedEnv Path("PATH", path("bin") + ":/usr/bin:/bin");
    Expected<NvdisasmLookup> L = findNvdisasm("");
    ASSERT_TRUE(static_cast<bool>(L)) << toString(L.takeError());
    EXPECT_EQ(L->Path, Fake);
    EXPECT_EQ(L->Origin, "PATH");
  }
  // A virtual environment with triton installed, nvdisasm not on PATH.
  std::string Venv = path("venv");
  std::string InPkg =
      Venv + "/lib/python3.12/site-packages/triton/backends/nvidia/bin";
  ASSERT_FALSE(sys::fs::create_directories(InPkg));
  ASSERT_FALSE(sys::fs::copy_file(Fake, InPkg + "/nvdisasm"));
  ASSERT_FALSE(sys::fs::setPermissions(InPkg + "/nvdisasm",
                                       sys::fs::all_read | sys::fs::all_exe));
  ScopedEnv Path("PATH", "/nonexistent");
  ScopedEnv VirtualEnv("VIRTUAL_ENV", Venv);
  Expected<NvdisasmLookup> L = findNvdisasm("");
  ASSERT_TRUE(static_cast<bool>(L)) << toString(L.takeError());
  EXPECT_EQ(L->Path, InPkg + "/nvdisasm");
  EXPECT_EQ(L->Origin, "triton package");
}

TEST(DefaultCacheDir, XdgThenHome) {
  {
    ScopedEnv X("XDG_CACHE_HOME", "/some/cache");
    EXPECT_EQ(defaultCacheDir(), "/some/cache/gestell");
  }
  {
    ScopedEnv X("XDG_CACHE_HOME", "");
    ScopedEnv H("HOME", "/home/someone");
    EXPECT_EQ(defaultCacheDir(), "/home/someone/.cache/gestell");
  }
}

} // namespace
