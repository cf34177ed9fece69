//===- BorrowedParsesTest.cpp - Checks on a twin's parses -----------------===//
//
// gestell diff checks a kernel that a build left untouched on its baseline
// twin's parses (KernelView::borrowParsed). The results must be those of
// the kernel's own parses, naming its own files: the built-in checks are
// run both ways on two copies of a real fixture that has findings.
//
//===----------------------------------------------------------------------===//
#include "LintSession.h"
#include "Runner.h"

#include "gestell/Bundle.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace gestell;
using namespace gestell::driver;
using namespace llvm;

namespace {

const char *const Fixture = "sm90-attn-wgmma-detour/regressed";

/// A copy of the fixture's files in a new temporary folder, its SASS
/// listing captured with nvdisasm's stderr (a reader note that names the
/// file).
std::string copyFixture() {
  SmallString<128> Dir;
  EXPECT_FALSE(sys::fs::createUniqueDirectory("gestell-twin", Dir));
  std::string From =
      std::string(GESTELL_TEST_CORPUS) + "/../fixtures/" + Fixture;
  std::error_code EC;
  for (sys::fs::directory_iterator It(From, EC), E; It != E && !EC;
       It.increment(EC)) {
    SmallString<128> To(Dir);
    sys::path::append(To, sys::path::filename(It->path()));
    EXPECT_FALSE(sys::fs::copy_file(It->path(), To)) << It->path();
  }
  SmallString<128> Sass(Dir);
  sys::path::append(Sass, "attn_fwd.sass");
  auto Text = MemoryBuffer::getFile(Sass);
  EXPECT_TRUE(static_cast<bool>(Text));
  std::string Listing = (*Text)->getBuffer().str(); // before the file goes
  std::error_code EC2;
  raw_fd_ostream OS(Sass, EC2);
  EXPECT_FALSE(EC2) << EC2.message();
  OS << "nvdisasm warning : Disassembling Std Elf to Old format or Old Elf "
        "to Std format not supported yet, switching to Std format\n"
     << Listing;
  return std::string(Dir);
}

/// Every field of each result a report prints, paths included.
std::vector<std::string> described(const KernelOutcome &O) {
  std::vector<std::string> Out;
  auto Loc = [](const DiagLoc &L) {
    return L.File + ":" + utostr(L.Line) + ":" + utostr(L.Column) + " " +
           L.Message;
  };
  for (const Result &R : O.Results) {
    const Diagnostic &D = R.Diag;
    std::string S = D.CheckId + " | " + D.Message + " | " + Loc(D.Primary);
    for (const DiagLoc &L : D.Related)
      S += " | related " + Loc(L);
    for (const DiagLoc &L : D.Causes)
      S += " | cause " + Loc(L);
    for (const Note &N : D.Notes)
      S += " | note " + N.Message + (N.Loc ? " at " + Loc(*N.Loc) : "");
    if (D.Hint)
      S += " | hint " + D.Hint->Message;
    Out.push_back(S + " | " + fingerprint(D));
  }
  for (const Notification &N : O.Notifications)
    Out.push_back("notification " + N.Message + " at " + N.File);
  return Out;
}

TEST(BorrowedParses, ChecksOnATwinsParsesNameTheKernelsOwnFiles) {
  const std::string Lent = copyFixture(), Own = copyFixture();
  LintOptions Opts;
  Opts.Paths = {Own};
  Opts.BuiltinPluginDirs = {GESTELL_TEST_PLUGIN_DIR};
  Expected<std::unique_ptr<LintSession>> Session = LintSession::create(Opts);
  ASSERT_TRUE(static_cast<bool>(Session)) << toString(Session.takeError());
  const EffectiveConfig &Cfg = (*Session)->configForPath(0);

  Discovery FromLent = discoverKernels({Lent});
  Discovery FromOwn = discoverKernels({Own});
  ASSERT_EQ(FromLent.Kernels.size(), 1u);
  ASSERT_EQ(FromOwn.Kernels.size(), 1u);
  Kernel &K = FromOwn.Kernels.front();
  KernelJob Job{&K, &Cfg, nullptr};
  AnalysisOptions Analysis;

  KernelOutcome Alone;
  {
    KernelView View(K, Analysis);
    checkKernel(Job, View, nullptr, Analysis, Alone);
  }

  // The twin read as gestell diff reads a base kernel: its stages parsed,
  // then its checks run.
  KernelView Twin(FromLent.Kernels.front(), Analysis);
  KernelOutcome TwinOutcome;
  checkKernel({&FromLent.Kernels.front(), &Cfg, nullptr}, Twin, nullptr,
              Analysis, TwinOutcome);
  KernelOutcome Borrowed;
  KernelView View(K, Analysis);
  View.borrowParsed(Twin);
  checkKernel(Job, View, nullptr, Analysis, Borrowed);

  // Nothing was parsed again.
  Expected<const TtgirModule &> Mine = View.ttgir(), Theirs = Twin.ttgir();
  ASSERT_TRUE(Mine && Theirs);
  EXPECT_EQ(&*Mine, &*Theirs);
  Expected<const SassModule &> MySass = View.sass(), TheirSass = Twin.sass();
  ASSERT_TRUE(MySass && TheirSass);
  EXPECT_EQ(&*MySass, &*TheirSass);
  EXPECT_EQ(View.sassPath(), K.path(Stage::SASS));

  // The same results, naming the kernel's own files, never the twin's.
  std::vector<std::string> Want = described(Alone), Got = described(Borrowed);
  ASSERT_GE(Want.size(), 4u); // the fixture's three warnings, the note
  EXPECT_TRUE(any_of(Want, [](const std::string &R) {
    return StringRef(R).contains("the disassembler printed about itself");
  }));
  EXPECT_EQ(Got, Want);
  for (const std::string &R : Got) {
    EXPECT_EQ(StringRef(R).find(Lent), StringRef::npos) << R;
    EXPECT_NE(StringRef(R).find(Own), StringRef::npos) << R;
  }
  EXPECT_NE(described(TwinOutcome), Want); // the twin's name its files

  sys::fs::remove_directories(Lent);
  sys::fs::remove_directories(Own);
}

TEST(BorrowedParses, TextsNameTheKernelsFilesOnlyWhereItBorrowed) {
  Kernel A, B;
  A.Name = B.Name = "k";
  A.Dir = "/a/x";
  B.Dir = "/b/y";
  A.setPath(Stage::TTGIR, "/a/x/k.ttgir");
  A.setPath(Stage::TTIR, "/a/x/k.ttir");
  B.setPath(Stage::TTGIR, "/b/y/k.ttgir");
  B.setPath(Stage::TTIR, "/b/y/k.ttir");
  KernelView Lender(A), Borrower(B);
  EXPECT_EQ(Borrower.ownPaths("/a/x/k.ttgir:3"), "/a/x/k.ttgir:3");
  Borrower.borrowParsed(Lender);
  EXPECT_EQ(Borrower.ownPaths("see /a/x/k.ttgir:3 and /a/x/k.ttir"),
            "see /b/y/k.ttgir:3 and /b/y/k.ttir");
  EXPECT_EQ(Borrower.ownPaths("/a/x/k.ptx"), "/a/x/k.ptx"); // no such stage
  Diagnostic D;
  D.Primary = DiagLoc::artifact(Stage::TTGIR, "/a/x/k.ttgir", 4, 2);
  D.SourceLoc = DiagLoc::source("/a/x/k.ttgir", 9); // a Python path
  D.Related.push_back(DiagLoc::artifact(Stage::TTIR, "/a/x/k.ttir", 1));
  Borrower.ownPaths(D);
  EXPECT_EQ(D.Primary.File, "/b/y/k.ttgir");
  EXPECT_EQ(D.Related.front().File, "/b/y/k.ttir");
  EXPECT_EQ(D.SourceLoc->File, "/a/x/k.ttgir");
  Borrower.release();
  EXPECT_EQ(Borrower.ownPaths("/a/x/k.ttgir"), "/a/x/k.ttgir");
}

} // namespace
