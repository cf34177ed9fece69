//===- TmaFallbackCheck.cpp - nvidia-tma-fallback -------------------------===//
#include "TmaFallbackCheck.h"

#include "gestell/StageFamilies.h"
#include "gestell/utils/KernelCode.h"
#include "gestell/utils/Locate.h"
#include "gestell/utils/OptionalStages.h"

#include "llvm/ADT/StringExtras.h"

#include <memory>
#include <set>

using namespace llvm;

namespace gestell::nvidia {

CheckInfo TmaFallbackCheck::info() {
  CheckInfo I;
  I.Id = "nvidia-tma-fallback";
  I.Summary = "Tensor descriptors in the Triton IR but no TMA copy in the PTX "
              "or SASS: the descriptor loads fell back to plain memory "
              "instructions";
  I.Description =
      "The kernel uses tensor descriptors (tt.make_tensor_descriptor, "
      "tt.descriptor_load / _store, !tt.tensordesc, ttng.async_tma_*) in its "
      ".source, .ttir or .ttgir, but its PTX has no cp.async.bulk.tensor and "
      "its SASS no UTMALDG / UTMASTG (the family table's `tma` mapping). On "
      "targets without TMA (before sm_90) Triton rewrites descriptors into "
      "pointer loads and stores, which is correct but not what the kernel "
      "was written for.";
  I.Category = "performance";
  I.Precision = "high"; // docs/checks/<id>.md, "On real code"
  I.Tags = {"tma"};
  I.DefaultLevel = Level::Warning;
  I.Stages = {Stage::PTX};
  return I;
}

TmaFallbackCheck::TmaFallbackCheck(StringRef Name, CheckContext &Context)
    : Check(Name, Context) {}

namespace {

bool isDescriptorAccess(StringRef Name) {
  if (Name.starts_with("tt.descriptor_"))
    return true;
  return Name.starts_with("ttng.async_tma_") && !Name.ends_with("_wait");
}

bool isDescriptorStore(StringRef Name) {
  return Name.contains("store") || Name.contains("local_to_global") ||
         Name.contains("scatter") || Name.contains("reduce");
}

bool usesDescriptorType(const Operation &Op) {
  for (const Value *V : Op.Results)
    if (V->Ty && V->Ty->K == Type::Kind::TensorDesc)
      return true;
  for (const Value *V : Op.Operands)
    if (V->Ty && V->Ty->K == Type::Kind::TensorDesc)
      return true;
  return false;
}

/// What one IR stage says about tensor descriptors.
struct DescriptorUse {
  Stage S = Stage::Source;
  unsigned Loads = 0, Stores = 0, Made = 0;
  const Operation *FirstAccess = nullptr;
  std::set<std::string> Ops;
  bool any() const { return Loads || Stores || Made; }
};

DescriptorUse descriptorsIn(const TtgirModule &M, Stage S) {
  DescriptorUse U;
  U.S = S;
  for (const Operation *Op : M.ops()) {
    if (isDescriptorAccess(Op->Name)) {
      ++(isDescriptorStore(Op->Name) ? U.Stores : U.Loads);
      U.Ops.insert(Op->Name.str());
      if (!U.FirstAccess)
        U.FirstAccess = Op;
    } else if (Op->Name == "tt.make_tensor_descriptor" ||
               Op->Name == "ttng.reinterpret_tensor_descriptor" ||
               Op->Name == "ttng.tensormap_create" || usesDescriptorType(*Op)) {
      ++U.Made;
    }
  }
  return U;
}

/// What the text of a stage that holds a descriptor access
/// (isDescriptorAccess) names: a "tt.descriptor_" or "ttng.async_tma_" op.
constexpr StringRef DescriptorWords[] = {"tt.descriptor_", "ttng.async_tma_"};

/// False only when stage S of K cannot hold a descriptor access: its text
/// names none of DescriptorWords. A file that cannot be read may.
bool mayNameDescriptorAccess(const Kernel &K, Stage S) {
  return stageMayMention(K, S, DescriptorWords);
}

/// The first op of M at the Python line of Src that reads or writes memory.
const Operation *memoryOpAt(const TtgirModule &M, const DiagLoc &Src) {
  for (const Operation *Op : M.ops()) {
    StringRef N = Op->Name;
    if (!(N.contains("load") || N.contains("store") || N.contains("copy")))
      continue;
    std::optional<DiagLoc> L = pythonSource(M, *Op);
    if (L && L->File == Src.File && L->Line == Src.Line)
      return Op;
  }
  return nullptr;
}

/// "sm_80" -> 80; 0 when not an sm_ target.
unsigned smNumber(StringRef Target) {
  Target = Target.split(',').first.trim();
  unsigned N = 0;
  if (!Target.consume_front("sm_"))
    return 0;
  Target = Target.take_while(isDigit);
  return Target.getAsInteger(10, N) ? 0 : N;
}

/// Does any instruction of the module have the family table's `tma`
/// mapping?
template <typename ModuleT>
bool anyTma(const ModuleT &M, const StageFamilies &Families,
            unsigned TmaMapping) {
  for (const auto &F : M.Functions)
    for (const auto &I : F.Instructions)
      if (Families.mapping(I) == TmaMapping)
        return true;
  return false;
}

/// Whether K's PTX or SASS, where they read, has a TMA instruction: a
/// kernel that kept its TMA has nothing to report.
bool keptTma(KernelView &V) {
  const PtxModule *Ptx = optionalPtx(V);
  if (!Ptx)
    return false;
  const StageFamilies &PtxFamilies = V.families(*Ptx);
  unsigned TmaMapping = PtxFamilies.mappingIndex("tma");
  if (TmaMapping == NoFamily)
    return false;
  if (anyTma(*Ptx, PtxFamilies, TmaMapping))
    return true;
  const SassModule *Sass = optionalSass(V);
  return Sass && anyTma(*Sass, V.families(*Sass), TmaMapping);
}

std::string plural(unsigned N, StringRef What) {
  return utostr(N) + " " + What.str() + (N == 1 ? "" : "s");
}
} // namespace

struct TmaFallbackCheck::IrStages {
  std::vector<std::unique_ptr<TtgirModule>> Owned; ///< .source, .ttir
  /// Descriptor uses of each stage that parses, earliest first.
  std::vector<std::pair<const TtgirModule *, DescriptorUse>> Stages;
  const TtgirModule *AskedIn = nullptr; ///< the first stage with an access
  const DescriptorUse *Asked = nullptr;

  IrStages(const IrStages &) = delete; // Asked points into Stages
  IrStages &operator=(const IrStages &) = delete;

  /// A stage that does not parse is no evidence either way.
  explicit IrStages(KernelView &V) {
    const Kernel &K = V.kernel();
    for (Stage S : {Stage::Source, Stage::TTIR, Stage::TTGIR}) {
      if (!K.has(S))
        continue;
      const TtgirModule *M = nullptr;
      if (S == Stage::TTGIR) {
        if (!(M = optionalTtgir(V)))
          continue;
      } else {
        Expected<std::unique_ptr<TtgirModule>> T = parseTtgir(K.path(S));
        if (!T) {
          consumeError(T.takeError());
          continue;
        }
        Owned.push_back(std::move(*T));
        M = Owned.back().get();
      }
      Stages.push_back({M, descriptorsIn(*M, S)});
    }
    for (const auto &[M, U] : Stages)
      if (U.FirstAccess) {
        AskedIn = M;
        Asked = &U;
        break;
      }
  }
};

Error TmaFallbackCheck::check(CheckInput &In) {
  const Kernel &K = In.Kernel.kernel();
  // Nothing to report unless some IR stage names a descriptor access: a
  // look at the text of .source and .ttir before parsing them, and at the
  // .ttgir's unless another check has parsed it already (the parse is
  // shared; without the other checks it is most of this one's cost).
  if (!mayNameDescriptorAccess(K, Stage::Source) &&
      !mayNameDescriptorAccess(K, Stage::TTIR)) {
    const TtgirModule *T = optionalTtgirMentioning(In.Kernel, DescriptorWords);
    if (!T || !descriptorsIn(*T, Stage::TTGIR).FirstAccess)
      return Error::success();
  }
  // Nor when the PTX or SASS kept TMA (the `tma` mapping of the family
  // table): looked at before the IR stages are parsed, since .source and
  // .ttir cost as much as the .ttgir and the other checks read the PTX and
  // SASS anyway.
  if (keptTma(In.Kernel))
    return Error::success();
  IrStages Ir(In.Kernel);
  if (!Ir.Asked)
    return Error::success();
  Expected<const PtxModule &> Ptx = In.Kernel.ptx();
  if (!Ptx)
    return Ptx.takeError();
  if (In.Kernel.families(*Ptx).mappingIndex("tma") == NoFamily)
    return createStringError(inconvertibleErrorCode(),
                             "the instruction family table has no 'tma' "
                             "mapping");
  report(In, *Ptx, optionalSass(In.Kernel), Ir);
  return Error::success();
}

void TmaFallbackCheck::report(CheckInput &In, const PtxModule &Ptx,
                              const SassModule *Sass, const IrStages &Ir) {
  const Kernel &K = In.Kernel.kernel();
  const DescriptorUse &Asked = *Ir.Asked;
  const Operation &Op = *Asked.FirstAccess;
  StringRef StageName = stageSuffix(Asked.S);
  SmallVector<std::string, 3> Parts;
  if (Asked.Loads)
    Parts.push_back(plural(Asked.Loads, "descriptor load"));
  if (Asked.Stores)
    Parts.push_back(plural(Asked.Stores, "descriptor store"));
  std::string Accesses = join(Parts, " and ");
  auto D =
      diag(DiagLoc::artifact(Asked.S, Ir.AskedIn->Path, Op.Line, Op.Column),
           "tensor descriptors lowered without TMA in kernel '" + K.Name +
               "': " + Accesses + " in the " + StageName +
               ", no TMA copy in the PTX" + (Sass ? " or SASS" : ""));
  std::optional<DiagLoc> Src = pythonSource(*Ir.AskedIn, Op);
  D.source(Src);

  // Where the later stages lost them, and what they use instead.
  SmallVector<std::string, 2> Without;
  for (const auto &[M, U] : Ir.Stages) {
    if (U.S == Asked.S)
      continue;
    if (!U.FirstAccess)
      Without.push_back(stageSuffix(U.S).str());
    if (Src && !U.FirstAccess)
      if (const Operation *Instead = memoryOpAt(*M, *Src))
        D.related(
            DiagLoc::artifact(U.S, M->Path, Instead->Line, Instead->Column),
            "the " + stageSuffix(U.S) + " accesses it with " + Instead->Name);
  }
  const StageFamilies &PtxFamilies = In.Kernel.families(Ptx);
  const PtxFunction *PF = kernelFunction(Ptx, K.Name);
  unsigned Global = PtxFamilies.familyIndex("global");
  if (Src && PF)
    for (const PtxInstruction &I : PF->Instructions) {
      if (!PtxFamilies.in(I, Global))
        continue;
      std::optional<DiagLoc> L = pythonSource(Ptx, I);
      if (L && L->File == Src->File && L->Line == Src->Line) {
        D.related(locate(Ptx, I), "the PTX accesses it with " + I.Opcode);
        break;
      }
    }

  std::string Counted = join(Parts, ", ");
  D.note(Counted + (Parts.empty() ? "" : " and ") +
         plural(Asked.Made, "other descriptor op") + " in the " + StageName +
         (Without.empty() ? std::string()
                          : "; none left in the " + join(Without, " and ")));
  std::string NoCopies =
      "0 TMA copies (cp.async.bulk.tensor) in the PTX" +
      std::string(Sass ? ", 0 (UTMALDG, UTMASTG) in the SASS" : "");
  if (PF)
    D.note(locate(Ptx, *PF), NoCopies);
  else
    D.note(NoCopies);
  unsigned Sm = smNumber(Ptx.Target);
  if (Sm && Sm < 90)
    D.note("target " + Ptx.Target.split(',').first.trim() +
           " has no TMA (sm_90 and newer)");
  if (Sass) {
    const StageFamilies &SassFamilies = In.Kernel.families(*Sass);
    unsigned Spills = 0, Spill = SassFamilies.familyIndex("spill");
    for (const SassFunction &F : Sass->Functions)
      for (const SassInstruction &I : F.Instructions)
        Spills += SassFamilies.in(I, Spill);
    if (Spills)
      D.note("the fallback code spills: " + utostr(Spills) +
             " STL/LDL in the SASS (nvidia-register-spill)");
  }
  if (Sm && Sm < 90)
    D.hint("TMA lowering (target capability)",
           "the target has no TMA, so Triton rewrites tensor descriptors into "
           "pointer loads and stores, correct but not what the kernel was "
           "written for; for pre-Hopper GPUs use pointer-based tl.load "
           "(pipelined with cp.async through num_stages) or dispatch a "
           "kernel written for them");
  else
    D.hint("TMA lowering (TritonNvidiaGPU)",
           "the target has TMA but the descriptors were not lowered to it: "
           "check the block shape (the innermost block dimension must span "
           "at least 16 bytes), 16-byte alignment of the base address and "
           "strides, and the element type");
  D.context("tma-fallback");
  for (const std::string &Name : Asked.Ops)
    D.context(Name);
}

} // namespace gestell::nvidia
