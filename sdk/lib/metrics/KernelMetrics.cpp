//===- KernelMetrics.cpp - What is counted of one kernel ------------------===//
#include "gestell/KernelMetrics.h"
#include "gestell/StageFamilies.h"
#include "metrics/SassCountsCache.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace gestell {

std::string KernelMetrics::whyMissing(StringRef StageName) const {
  for (const auto &[S, Why] : Missing)
    if (S == StageName)
      return Why;
  return "";
}

KernelMetrics collectKernelMetrics(KernelView &V, const FamilyTable &Families,
                                   MetricStages Stages) {
  KernelMetrics S;
  const Kernel &K = V.kernel();
  auto Record = [&](Error E) {
    handleAllErrors(
        std::move(E),
        [&](const MissingStage &M) {
          // An AMD kernel's cubin, PTX and SASS are not missing: none
          // exists (its code object is the .hsaco).
          bool NvidiaOnly = M.S == Stage::Cubin || M.S == Stage::PTX ||
                            M.S == Stage::SASS || M.S == Stage::SASSAlt;
          if (!(NvidiaOnly && K.otherBackend()))
            S.Missing.push_back({stageName(M.S).str(), M.Reason});
        },
        [&](const ErrorInfoBase &B) { S.Problems.push_back(B.message()); });
  };

  if (Stages.Resources) {
    for (const std::string &N : K.Notes)
      S.Problems.push_back(N);
    if (!K.has(Stage::Metadata))
      S.Missing.push_back(
          {"json", K.Meta ? "no .json metadata file (target and warps from "
                            "the .ttgir module attributes)"
                          : "no .json metadata file"});
    if (K.Meta)
      S.SharedDynamic = K.Meta->Shared;

    if (Expected<const CubinInfo &> C = V.cubin()) {
      ArchResolution A = resolveArch(*C, K);
      S.CubinTarget = A.Arch;
      if (A.SuffixUnknown)
        S.Notes.push_back(K.path(Stage::Cubin).str() +
                          ": the cubin's ELF flags do not say whether it is " +
                          A.Arch + " or " + A.Arch +
                          "a, and there is no PTX or Triton .json to tell");
      const CubinKernel *CK = C->find(K.Name);
      if (!CK && C->Kernels.size() == 1)
        CK = &C->Kernels.front();
      if (CK)
        S.Resources = *CK;
      else
        S.Problems.push_back(K.path(Stage::Cubin).str() +
                             ": no function named '" + K.Name +
                             "' in the cubin");
    } else {
      Record(C.takeError());
    }
    S.Occupancy = kernelOccupancy(V, V.options().Device);
  }
  // The view's counts (KernelView::counts) when they are by the same table:
  // the checks of a run classify the stages anyway, and every count rule
  // of a pack reads the same counts.
  if (Stages.Ptx) {
    if (Expected<const PtxModule &> P = V.ptx())
      S.Ptx = &Families == &FamilyTable::active()
                  ? V.counts(*P)
                  : countInstructions(*P, Families);
    else
      Record(P.takeError());
  }
  if (Stages.Sass) {
    // SASS that nvdisasm made into the cache: its counts, when an earlier
    // run of this gestell kept them beside it (metrics/SassCountsCache.h).
    std::optional<std::string> Cached = V.cachedSassPath();
    if (std::optional<StageCounts> Kept =
            Cached ? readSassCounts(*Cached, Families) : std::nullopt) {
      S.Sass = std::move(*Kept);
      S.SassFile = *Cached;
    } else if (Expected<const SassModule &> M = V.sass()) {
      S.Sass = &Families == &FamilyTable::active()
                   ? V.counts(*M)
                   : countInstructions(*M, Families);
      S.SassFile = V.sassPath().str();
      std::vector<std::string> Notes = V.readerNotes();
      if (Cached && *Cached == S.SassFile && Notes.empty())
        keepSassCounts(*Cached, Families, *S.Sass);
      for (std::string &N : Notes)
        S.Notes.push_back(std::move(N));
    } else {
      Record(M.takeError());
    }
  }
  return S;
}

ArchResolution resolveArch(const CubinInfo &C, StringRef PtxTarget,
                           const KernelMetadata *Meta) {
  ArchResolution R;
  if (!C.SmArch)
    return R;
  std::string Plain = "sm_" + std::to_string(C.SmArch);
  R.Arch = Plain;
  R.From = "cubin";
  if (C.ArchSpecific) {
    R.Arch += 'a';
    return R;
  }
  if (C.SmArch < 90)
    return R;
  // "sm_90a" / "sm_100f": the PTX names the variant it was written for.
  if (StringRef(PtxTarget).starts_with(Plain)) {
    StringRef Suffix = StringRef(PtxTarget).drop_front(Plain.size());
    if (Suffix.empty() || Suffix == "a" || Suffix == "f") {
      R.Arch = PtxTarget.str();
      R.From = "ptx";
      return R;
    }
  }
  if (Meta && !Meta->FromTtgir) {
    StringRef T = Meta->Target;
    unsigned Cap = 0;
    if (T.consume_front("cuda:") && !T.getAsInteger(10, Cap) && Cap >= 90) {
      R.Arch += 'a';
      R.From = "json";
      return R;
    }
  }
  R.SuffixUnknown = true;
  return R;
}

ArchResolution resolveArch(const CubinInfo &C, const Kernel &K) {
  std::string PtxTarget;
  if (!C.ArchSpecific && C.SmArch >= 90 && K.has(Stage::PTX))
    PtxTarget = readPtxTarget(K.path(Stage::PTX));
  return resolveArch(C, PtxTarget, K.Meta ? &*K.Meta : nullptr);
}

Isa defaultMetricStage(const KernelMetrics &Head, const KernelMetrics *Base) {
  auto All = [&](Isa I) {
    return Head.counts(I) && (!Base || Base->counts(I));
  };
  if (All(Isa::SASS))
    return Isa::SASS;
  if (All(Isa::PTX))
    return Isa::PTX;
  return Head.Sass ? Isa::SASS : Isa::PTX;
}

std::optional<double> resourceValue(const KernelMetrics &K, Resource R) {
  if (R == Resource::BlocksPerSM || R == Resource::WarpsPerSM ||
      R == Resource::Occupancy) {
    if (!K.Occupancy.Value)
      return std::nullopt;
    const Occupancy &O = *K.Occupancy.Value;
    return R == Resource::BlocksPerSM  ? double(O.BlocksPerSM)
           : R == Resource::WarpsPerSM ? double(O.WarpsPerSM)
                                       : O.Percent;
  }
  if (R == Resource::SharedDynamic) {
    if (K.SharedDynamic)
      return double(*K.SharedDynamic);
    return std::nullopt;
  }
  if (!K.Resources)
    return std::nullopt;
  switch (R) {
  case Resource::Registers:
    return double(K.Resources->Registers);
  case Resource::Stack:
    return double(K.Resources->Stack);
  case Resource::Local:
    return double(K.Resources->Local);
  case Resource::SharedStatic:
    return double(K.Resources->SharedStatic);
  case Resource::SharedDynamic:
  case Resource::BlocksPerSM:
  case Resource::WarpsPerSM:
  case Resource::Occupancy:
    break;
  }
  return std::nullopt;
}

namespace {

double pick(const Count &C, bool InLoops) {
  return double(InLoops ? C.InLoops : C.Total);
}
} // namespace

MetricValue KernelMetricProvider::value(const Metric &M) const {
  const bool IsBase = M.Side == MetricSide::Base;
  const KernelMetrics *K = IsBase ? Base : &Head;
  const char *Side = IsBase ? "the baseline" : "the kernel";
  if (!K)
    return MetricValue::unknown("no baseline kernel matches '" + KernelName +
                                "'");

  if (M.Kind == MetricKind::Resource) {
    if (std::optional<double> V = resourceValue(*K, M.Res))
      return MetricValue::known(*V);
    if (M.Res == Resource::BlocksPerSM || M.Res == Resource::WarpsPerSM ||
        M.Res == Resource::Occupancy)
      return MetricValue::unknown((Twine(Side) + " has no " +
                                   resourceName(M.Res) + " (" +
                                   K->Occupancy.Unknown + ")")
                                      .str());
    std::string From = M.Res == Resource::SharedDynamic ? "json" : "cubin";
    std::string Why = K->whyMissing(From);
    return MetricValue::unknown(
        (Twine(Side) + " has no " + resourceName(M.Res) + " (" +
         (Why.empty() ? "no " + From + " entry" : Why) + ")")
            .str());
  }

  Isa I;
  if (M.Stage == MetricStage::PTX)
    I = Isa::PTX;
  else if (M.Stage == MetricStage::SASS)
    I = Isa::SASS;
  else if (M.Kind == MetricKind::Opcode &&
           M.opcodeStage() != MetricStage::Default)
    I = M.opcodeStage() == MetricStage::PTX ? Isa::PTX : Isa::SASS;
  else
    I = defaultMetricStage(Head, Base);
  const StageCounts *C = K->counts(I);
  if (!C) {
    std::string Why = K->whyMissing(isaName(I));
    return MetricValue::unknown((Twine(Side) + " has no " +
                                 (I == Isa::PTX ? "PTX" : "SASS") +
                                 (Why.empty() ? "" : ": " + Why))
                                    .str());
  }
  double V = 0;
  switch (M.Kind) {
  case MetricKind::Family:
    if (M.Family < C->Families.size())
      V = pick(C->Families[M.Family], M.InLoops);
    break;
  case MetricKind::Instructions:
    V = pick(C->Instructions, M.InLoops);
    break;
  case MetricKind::Other:
    V = pick(C->Other, M.InLoops);
    break;
  case MetricKind::Opcode:
    for (const OpcodeCount &E : C->Opcodes)
      if (M.matchesOpcode(E.Opcode))
        V += pick(E.N, M.InLoops);
    break;
  case MetricKind::Resource:
    break;
  }
  return MetricValue::known(V, isaName(I));
}

} // namespace gestell
