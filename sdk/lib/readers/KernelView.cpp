//===- KernelView.cpp - Lazily parsed stages of one kernel ----------------===//
//
// Each stage is parsed on first request. A failure is remembered as a
// replayable error of the same kind (MissingStage, InputError, other), so
// a second request neither re-reads the file nor loses the error's type.
//
//===----------------------------------------------------------------------===//
#include "gestell/KernelView.h"
#include "gestell/Diagnostic.h"
#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/InstructionCounts.h"
#include "gestell/StageFamilies.h"
#include "gestell/utils/ModuleConversions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace gestell {

char MissingStage::ID = 0;

void MissingStage::log(raw_ostream &OS) const {
  OS << "no " << stageName(S) << " for kernel '" << Kernel << "': " << Reason;
}

std::error_code MissingStage::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

KernelView::KernelView(const Kernel &K, const AnalysisOptions &Opts)
    : K(K), Opts(Opts) {
  if (this->Opts.CacheDir.empty())
    this->Opts.CacheDir = defaultCacheDir();
}
KernelView::~KernelView() = default;

namespace {
/// Turns an error into a function that makes an equal error again.
std::function<Error()> replayable(Error E) {
  std::function<Error()> Replay;
  handleAllErrors(
      std::move(E),
      [&](const MissingStage &M) {
        Replay = [M] {
          return make_error<MissingStage>(M.S, M.Kernel, M.Reason);
        };
      },
      [&](const InputError &I) {
        Replay = [I] {
          return make_error<InputError>(I.Path, I.Line, I.Column, I.Message);
        };
      },
      [&](const ErrorInfoBase &B) {
        std::string Msg = B.message();
        Replay = [Msg] {
          return createStringError(inconvertibleErrorCode(), Msg);
        };
      });
  return Replay;
}
} // namespace

template <typename T, typename ParseFn>
Expected<const T &> KernelView::load(Slot<T> &S, ParseFn Parse) {
  S.Requested = true;
  if (S.Value)
    return *S.Value;
  if (S.Failure)
    return S.Failure();
  Expected<std::unique_ptr<T>> R = Parse();
  if (!R) {
    S.Failure = replayable(R.takeError());
    handleAllErrors(
        S.Failure(), [](const MissingStage &) {},
        [&](const InputError &I) {
          S.Unread = {I.message(), I.Path, I.Line, I.Column};
        },
        [&](const ErrorInfoBase &B) { S.Unread = {B.message(), "", 0, 0}; });
    return S.Failure();
  }
  S.Value = std::move(*R);
  return *S.Value;
}

namespace {
/// "no .ptx file", or for a kernel of a trace "no .ptx in the trace event".
std::string noFile(const Kernel &K, Stage S) {
  return K.absentWhy(
      S, ("no " + stageSuffix(S) + (K.Trace ? " in the trace event" : " file"))
             .str());
}
} // namespace

Error KernelView::missing(Stage S, const Twine &Reason) const {
  return make_error<MissingStage>(S, K.Name, Reason.str());
}

Expected<const PtxModule &> KernelView::ptx() {
  if (takeFromDonor(Ptx, &KernelView::Ptx, Stage::PTX, [&] {
        return sameArtifactBytes(Donor->K.path(Stage::PTX), K.path(Stage::PTX));
      })) {
    PtxFamilies = Donor->PtxFamilies;
    PtxCounts = Donor->PtxCounts;
  }
  return load(Ptx, [&]() -> Expected<std::unique_ptr<PtxModule>> {
    if (!K.has(Stage::PTX))
      return missing(Stage::PTX, noFile(K, Stage::PTX));
    return parsePtx(K.path(Stage::PTX));
  });
}

std::optional<std::string> sassUnavailable(const Kernel &K,
                                           const AnalysisOptions &Opts) {
  if (K.has(Stage::SASS) || K.has(Stage::SASSAlt))
    return std::nullopt;
  if (!K.has(Stage::Cubin))
    // Said once for many kernels: no kernel's own paths.
    return K.Trace ? "no .sass in the trace event, and no cubin gestell may "
                     "read (the one the trace names is not on this machine, "
                     "or outside the scanned and --trace-cache folders)"
                   : "no .sass and no .cubin file";
  if (Opts.Nvdisasm.empty())
    return (K.Trace ? "no .sass in the trace event, and "
                    : "no .sass file beside the cubin, and ") +
           Opts.NvdisasmMissing;
  return std::nullopt;
}

Expected<const SassModule &> KernelView::sass() {
  return load(Sass, [&]() -> Expected<std::unique_ptr<SassModule>> {
    std::string Path;
    if (K.has(Stage::SASS))
      Path = K.path(Stage::SASS).str();
    else if (K.has(Stage::SASSAlt))
      Path = K.path(Stage::SASSAlt).str();
    else if (std::optional<std::string> Why = sassUnavailable(K, Opts))
      return missing(Stage::SASS, *Why);
    else {
      Expected<std::string> Made = disassembled();
      if (!Made)
        return handleErrors(Made.takeError(), [&](const MissingStage &M) {
          return missing(Stage::SASS, M.Reason); // named for this kernel
        });
      Path = std::move(*Made);
    }
    SassPath = Path;
    Expected<std::unique_ptr<SassModule>> M = parseSass(Path);
    if (M)
      return M;
    // A .sass that holds only a disassembler's error: the nvdisasm given
    // to gestell may be newer and decode the cubin; else no SASS.
    std::optional<std::string> NoListing;
    if (Error E = handleErrors(M.takeError(), [&](const MissingStage &Why) {
          NoListing = Why.Reason;
        }))
      return E;
    if (!K.has(Stage::Cubin) || Opts.Nvdisasm.empty())
      return missing(Stage::SASS, *NoListing);
    Expected<std::string> Made = disassembled();
    if (!Made)
      return handleErrors(Made.takeError(), [&](const MissingStage &Why) {
        return missing(Stage::SASS, *NoListing + "; " + Why.Reason);
      });
    SassPath = *Made;
    return parseSass(*Made);
  });
}

Expected<std::string> KernelView::disassembled() {
  if (Disassembled)
    return *Disassembled;
  if (DisassemblyFailure)
    return DisassemblyFailure();
  Expected<std::string> Made =
      disassembleCubin(K.path(Stage::Cubin), Opts.Nvdisasm, Opts.CacheDir);
  if (!Made) {
    DisassemblyFailure = replayable(Made.takeError());
    return DisassemblyFailure();
  }
  Disassembled = *Made;
  return Made;
}

std::optional<std::string> KernelView::cachedSassPath() {
  if (K.has(Stage::SASS) || K.has(Stage::SASSAlt) || sassUnavailable(K, Opts))
    return std::nullopt;
  Expected<std::string> Made = disassembled();
  if (!Made) {
    consumeError(Made.takeError()); // sass() reports it
    return std::nullopt;
  }
  return *Made;
}

Expected<const CubinInfo &> KernelView::cubin() {
  return load(Cubin, [&]() -> Expected<std::unique_ptr<CubinInfo>> {
    if (!K.has(Stage::Cubin))
      return missing(Stage::Cubin, noFile(K, Stage::Cubin));
    Expected<CubinInfo> C = readCubin(K.path(Stage::Cubin));
    if (!C)
      return C.takeError();
    return std::make_unique<CubinInfo>(std::move(*C));
  });
}

Expected<const TtgirModule &> KernelView::ttgir() {
  if (takeFromDonor(Ttgir, &KernelView::Ttgir, Stage::TTGIR, [&] {
        Expected<std::unique_ptr<MemoryBuffer>> Mine =
            openArtifact(K.path(Stage::TTGIR), Content::Text);
        if (!Mine) {
          consumeError(Mine.takeError()); // the parse reports it
          return false;
        }
        return (*Mine)->getBuffer() == Donor->Ttgir.Value->text();
      }))
    Conversions = Donor->Conversions;
  return load(Ttgir, [&]() -> Expected<std::unique_ptr<TtgirModule>> {
    if (!K.has(Stage::TTGIR))
      return missing(Stage::TTGIR, noFile(K, Stage::TTGIR));
    return parseTtgir(K.path(Stage::TTGIR));
  });
}

Expected<ModuleConversions &> KernelView::conversions() {
  if (Conversions)
    return *Conversions;
  Expected<const TtgirModule &> T = ttgir();
  if (!T)
    return T.takeError();
  Conversions = std::make_unique<ModuleConversions>(*T);
  return *Conversions;
}

const StageFamilies &KernelView::families(const PtxModule &M) {
  if (!PtxFamilies)
    PtxFamilies = std::make_unique<StageFamilies>(M, FamilyTable::active());
  return *PtxFamilies;
}

const StageFamilies &KernelView::families(const SassModule &M) {
  if (!SassFamilies)
    SassFamilies = std::make_unique<StageFamilies>(M, FamilyTable::active());
  return *SassFamilies;
}

const StageCounts &KernelView::counts(const PtxModule &M) {
  if (!PtxCounts)
    PtxCounts =
        std::make_shared<StageCounts>(countInstructions(M, families(M)));
  return *PtxCounts;
}

const StageCounts &KernelView::counts(const SassModule &M) {
  if (!SassCounts)
    SassCounts =
        std::make_shared<StageCounts>(countInstructions(M, families(M)));
  return *SassCounts;
}

std::vector<std::string> KernelView::readerNotes() const {
  std::vector<std::string> Out;
  if (const SassModule *M = Sass.Value.get(); M && M->ToolMessages)
    Out.push_back(ownPaths(M->Path) + ":" +
                  std::to_string(M->FirstToolMessageLine) + ": " +
                  std::to_string(M->ToolMessages) +
                  " line(s) the disassembler printed about itself were "
                  "skipped (the listing was captured with its stderr), "
                  "first: '" +
                  M->FirstToolMessage + "'");
  return Out;
}

std::vector<KernelView::ReadError> KernelView::readErrors() const {
  std::vector<ReadError> Out;
  for (const ReadError *E :
       {&Ptx.Unread, &Sass.Unread, &Cubin.Unread, &Ttgir.Unread})
    if (!E->Text.empty())
      Out.push_back(*E);
  return Out;
}

void KernelView::markReads() {
  Ptx.Requested = Sass.Requested = Cubin.Requested = Ttgir.Requested = false;
}

std::vector<KernelView::ReadError> KernelView::readErrorsSinceMark() const {
  std::vector<ReadError> Out;
  auto Add = [&](const auto &S) {
    if (S.Requested && !S.Unread.Text.empty())
      Out.push_back(S.Unread);
  };
  Add(Ptx);
  Add(Sass);
  Add(Cubin);
  Add(Ttgir);
  return Out;
}

void KernelView::release() {
  Conversions.reset();
  PtxFamilies.reset();
  SassFamilies.reset();
  PtxCounts.reset();
  SassCounts.reset();
  Ptx = {};
  Sass = {};
  Cubin = {};
  Ttgir = {};
  SassPath.clear();
  Lender = nullptr;
  Borrowed = 0;
  Donor = nullptr;
}

void KernelView::borrowParsed(const KernelView &Twin) {
  Lender = &Twin.K;
  // Every file of the twin holds this kernel's bytes: a check may name any.
  Borrowed = (1u << NumStages) - 1;
  auto Take = [](auto &Mine, const auto &Theirs) {
    if (!Mine.Value && !Mine.Failure && Theirs.Value)
      Mine.Value = Theirs.Value;
  };
  Take(Ptx, Twin.Ptx);
  Take(Cubin, Twin.Cubin);
  Take(Ttgir, Twin.Ttgir);
  if (!Sass.Value && !Sass.Failure && Twin.Sass.Value) {
    Sass.Value = Twin.Sass.Value;
    SassPath = ownPaths(Twin.SassPath); // the cache's file stays the same
  }
  if (!Conversions && Ttgir.Value == Twin.Ttgir.Value)
    Conversions = Twin.Conversions;
  if (!PtxFamilies && Ptx.Value == Twin.Ptx.Value)
    PtxFamilies = Twin.PtxFamilies;
  if (!SassFamilies && Sass.Value == Twin.Sass.Value)
    SassFamilies = Twin.SassFamilies;
  if (!PtxCounts && Ptx.Value == Twin.Ptx.Value)
    PtxCounts = Twin.PtxCounts;
  if (!SassCounts && Sass.Value == Twin.Sass.Value)
    SassCounts = Twin.SassCounts;
}

void KernelView::offerParses(const KernelView &D) { Donor = &D; }

template <typename T>
bool KernelView::takeFromDonor(Slot<T> &Mine, Slot<T> KernelView::*Theirs,
                               Stage S, function_ref<bool()> SameBytes) {
  if (!Donor || Mine.Value || Mine.Failure || !K.has(S) ||
      !(Donor->*Theirs).Value)
    return false;
  // The kernel whose file the parse names: the donor, or the kernel the
  // donor borrowed it from in turn. One kernel lends to a view.
  const Kernel *Owner =
      Donor->Borrowed >> unsigned(S) & 1 ? Donor->Lender : &Donor->K;
  if ((Lender && Lender != Owner) || !SameBytes())
    return false;
  Mine.Value = (Donor->*Theirs).Value;
  Lender = Owner;
  Borrowed |= 1u << unsigned(S);
  return true;
}

std::string KernelView::ownPaths(StringRef Text) const {
  if (!Lender)
    return Text.str();
  // The stages borrowed whose file has another name here, longest first:
  // no stage's file is then mistaken for a part of another.
  SmallVector<Stage, NumStages> Order;
  for (unsigned S = 0; S < NumStages; ++S)
    if ((Borrowed >> S & 1) && Lender->has(Stage(S)) && K.has(Stage(S)) &&
        Lender->path(Stage(S)) != K.path(Stage(S)))
      Order.push_back(Stage(S));
  if (Order.empty())
    return Text.str();
  llvm::sort(Order, [&](Stage A, Stage B) {
    return Lender->path(A).size() > Lender->path(B).size();
  });
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    bool Replaced = false;
    for (Stage S : Order)
      if (Text.substr(I).starts_with(Lender->path(S))) {
        Out += K.path(S);
        I += Lender->path(S).size();
        Replaced = true;
        break;
      }
    if (!Replaced)
      Out += Text[I++];
  }
  return Out;
}

void KernelView::ownPaths(Diagnostic &D) const {
  if (!Lender)
    return;
  auto Loc = [&](DiagLoc &L) {
    if (!L.isSource())
      L.File = ownPaths(L.File);
    L.Message = ownPaths(L.Message);
  };
  D.Message = ownPaths(D.Message);
  Loc(D.Primary);
  for (DiagLoc &L : D.Related)
    Loc(L);
  for (DiagLoc &L : D.Causes)
    Loc(L);
  for (Note &N : D.Notes) {
    N.Message = ownPaths(N.Message);
    if (N.Loc)
      Loc(*N.Loc);
  }
  if (D.Hint)
    D.Hint->Message = ownPaths(D.Hint->Message);
}

} // namespace gestell
