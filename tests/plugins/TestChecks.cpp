//===- TestChecks.cpp - Checks that exercise the lint engine in tests -----===//
//
// The "test" module, loaded by the lit tests with --load. Each check is
// honest about real artifacts (it reads the file and points at the exact
// line) but exists to exercise one part of the engine: options, notes and
// fix hints (test-num-warps), Python source and related locations
// (test-kernel-entry), failure handling (test-fails), the baseline hook
// (test-baseline).
//
//===----------------------------------------------------------------------===//
#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/Plugin.h"

#include "llvm/ADT/StringExtras.h"

#include <stdexcept>

using namespace gestell;
using namespace llvm;

namespace {

/// Line and column of the first occurrence of Needle in a text artifact.
Expected<DiagLoc> find(Stage S, StringRef Path, StringRef Needle) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  size_t Off = (*Buf)->getBuffer().find(Needle);
  if (Off == StringRef::npos)
    return inputError(Path, "no '" + Needle + "'");
  LineCol LC = lineColOf((*Buf)->getBuffer(), Off);
  return DiagLoc::artifact(S, Path, LC.Line, LC.Column);
}

/// Kernels with more warps than MaxWarps (from the metadata .json).
class NumWarpsCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "test-num-warps";
    I.Summary = "Kernel launched with more warps than the threshold";
    I.Category = "test";
    I.Stages = {Stage::Metadata};
    return I;
  }
  NumWarpsCheck(StringRef Name, CheckContext &Context)
      : Check(Name, Context), MaxWarps(Options.get("MaxWarps", 4)),
        Hint(Options.get("Hint", "lower num_warps in the launch config")) {}
  void storeOptions(OptionMap &Opts) const override {
    Options.store(Opts, "MaxWarps", MaxWarps);
    Options.store(Opts, "Hint", Hint);
  }
  Error check(CheckInput &In) override {
    const Kernel &K = In.Kernel.kernel();
    int64_t Warps = K.Meta->NumWarps.value_or(0);
    if (Warps <= MaxWarps)
      return Error::success();
    Expected<DiagLoc> L =
        find(Stage::Metadata, K.path(Stage::Metadata), "\"num_warps\"");
    if (!L)
      return L.takeError();
    diag(*L, "kernel '" + K.Name + "' uses " + Twine(Warps) + " warps")
        .note(Twine(Warps) + " warps (threshold " + Twine(MaxWarps) + ")")
        .hint("triton.Config num_warps", Hint)
        .context("num_warps");
    return Error::success();
  }

private:
  const int64_t MaxWarps;
  const std::string Hint;
};

/// A remark at the kernel's PTX entry, with its Python line (the first
/// .loc after the entry) and the TTGIR function as related location.
class KernelEntryCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "test-kernel-entry";
    I.Summary = "Where a kernel starts in PTX, TTGIR and Python";
    I.Category = "test";
    I.DefaultLevel = Level::Remark;
    I.Stages = {Stage::PTX, Stage::TTGIR};
    return I;
  }
  using Check::Check;
  Error check(CheckInput &In) override {
    const Kernel &K = In.Kernel.kernel();
    StringRef Path = K.path(Stage::PTX);
    Expected<std::unique_ptr<MemoryBuffer>> Buf =
        openArtifact(Path, Content::Text);
    if (!Buf)
      return Buf.takeError();
    SmallVector<StringRef, 0> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    SmallVector<std::string, 4> Files;
    for (StringRef L : Lines) {
      // .file 1 "/src/kernels/triton_kernels.py"
      L = L.trim();
      unsigned N;
      if (!L.consume_front(".file"))
        continue;
      L = L.ltrim();
      if (L.consumeInteger(10, N) || N > 1000)
        continue;
      Files.resize(std::max<size_t>(Files.size(), N + 1));
      Files[N] = L.trim().trim('"').str();
    }
    for (size_t I = 0; I < Lines.size(); ++I) {
      StringRef L = Lines[I];
      size_t Col = L.find(".entry");
      if (Col == StringRef::npos)
        continue;
      auto D = diag(DiagLoc::artifact(Stage::PTX, Path, I + 1, Col + 1),
                    "kernel '" + K.Name + "' starts here");
      for (size_t J = I + 1; J < Lines.size(); ++J) {
        StringRef Loc = Lines[J].trim();
        if (!Loc.consume_front(".loc"))
          continue;
        unsigned F = 0, Line = 0, Column = 0;
        Loc = Loc.ltrim();
        if (Loc.consumeInteger(10, F) || F >= Files.size())
          break;
        Loc = Loc.ltrim();
        if (Loc.consumeInteger(10, Line))
          break;
        Loc = Loc.ltrim();
        Loc.consumeInteger(10, Column);
        D.source(DiagLoc::source(Files[F], Line, Column));
        break;
      }
      if (Expected<DiagLoc> T =
              find(Stage::TTGIR, K.path(Stage::TTGIR), "tt.func"))
        D.related(*T, "the TTGIR function");
      else
        consumeError(T.takeError());
      D.context("entry");
      return Error::success();
    }
    return inputError(Path, "no .entry");
  }
};

/// Fails on purpose: throws on the kernel named by ThrowOn, returns an
/// Error on the kernel named by FailOn.
class FailsCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "test-fails";
    I.Summary = "Fails on purpose on chosen kernels";
    I.Category = "test";
    I.EnabledByDefault = false;
    return I;
  }
  FailsCheck(StringRef Name, CheckContext &Context)
      : Check(Name, Context), ThrowOn(Options.get("ThrowOn", "softmax_rows")),
        FailOn(Options.get("FailOn", "vadd")) {}
  void storeOptions(OptionMap &Opts) const override {
    Options.store(Opts, "ThrowOn", ThrowOn);
    Options.store(Opts, "FailOn", FailOn);
  }
  Error check(CheckInput &In) override {
    const Kernel &K = In.Kernel.kernel();
    // Reported before failing: the engine must drop it.
    diag(DiagLoc::artifact(Stage::Metadata, K.path(Stage::Metadata)),
         "partial result");
    if (K.Name == ThrowOn)
      throw std::runtime_error("deliberate exception on " + K.Name);
    if (K.Name == FailOn)
      return createStringError(inconvertibleErrorCode(),
                               "deliberate error on %s", K.Name.c_str());
    return Error::success();
  }

private:
  const std::string ThrowOn, FailOn;
};

/// Says which baseline kernel the engine matched.
class BaselineCheck : public Check {
public:
  static CheckInfo info() {
    CheckInfo I;
    I.Id = "test-baseline";
    I.Summary = "Names the baseline kernel matched to each kernel";
    I.Category = "test";
    I.DefaultLevel = Level::Remark;
    I.Stages = {Stage::Metadata};
    return I;
  }
  using Check::Check;
  Error check(CheckInput &In) override {
    if (!In.Baseline)
      return Error::success();
    const Kernel &K = In.Kernel.kernel();
    const Kernel &B = In.Baseline->kernel();
    diag(DiagLoc::artifact(Stage::Metadata, K.path(Stage::Metadata), 1, 1),
         "baseline kernel '" + B.Name + "' for " + K.target());
    return Error::success();
  }
};

void registerChecks(CheckRegistry &R) {
  R.add<BaselineCheck>();
  R.add<FailsCheck>();
  R.add<KernelEntryCheck>();
  R.add<NumWarpsCheck>();
}

} // namespace

extern "C" GESTELL_PLUGIN_EXPORT PluginInfo gestellGetPluginInfo() {
  return {GESTELL_PLUGIN_API_VERSION, "test", "1.0.0", registerChecks};
}
