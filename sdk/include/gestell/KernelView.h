//===- gestell/KernelView.h - Lazily parsed stages of one kernel ----------===//
//
// What checks and commands read: a Kernel plus its stages, each parsed on
// first use and kept until release(). A stage that fails to parse fails once:
// the error is remembered and returned again, the file is not re-read.
//
// SASS when the bundle has none: a Triton cache keeps the cubin but no SASS.
// With an nvdisasm (findNvdisasm) the cubin is disassembled (`nvdisasm -c
// -gi`) into the tool's own cache directory, never into the bundle, keyed by
// the cubin's content hash, and reused on later runs. What only counts the
// SASS (collectKernelMetrics) keeps the counts beside the listing and reads
// them back instead of parsing it (lib/metrics/SassCountsCache.h).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_KERNELVIEW_H
#define GESTELL_KERNELVIEW_H

#include "gestell/Bundle.h"
#include "gestell/Cubin.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {

struct DevicePart;
struct Diagnostic;
class ModuleConversions;
class StageFamilies;
struct StageCounts;

/// A stage a kernel does not have and that cannot be made: not an input
/// error (binary-only caches have no PTX, plain caches no SASS). Reported
/// as missing, never as a problem.
class MissingStage : public llvm::ErrorInfo<MissingStage> {
public:
  static char ID;
  MissingStage(Stage S, llvm::StringRef Kernel, llvm::StringRef Reason)
      : S(S), Kernel(Kernel.str()), Reason(Reason.str()) {}
  /// "no sass for kernel 'matmul': <reason>"
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  Stage S;
  std::string Kernel;
  std::string Reason;
};

/// Settings that affect how stages are obtained, shared by all kernels.
struct AnalysisOptions {
  /// nvdisasm to make SASS from a cubin when the bundle has none; "" = do not.
  std::string Nvdisasm;
  /// Why there is no Nvdisasm (shown once per run), when it is "".
  std::string NvdisasmMissing =
      "no nvdisasm (give --nvdisasm=PATH, put it on PATH, or install the "
      "triton package)";
  /// The tool's own cache directory for derived files (never the bundle);
  /// "" = defaultCacheDir().
  std::string CacheDir;
  /// The GPU occupancy is judged for (--device); null = the capability each
  /// cubin was built for (gestell/Occupancy.h).
  const DevicePart *Device = nullptr;
};

/// $XDG_CACHE_HOME/gestell, else ~/.cache/gestell.
std::string defaultCacheDir();

/// Where an nvdisasm was found, or why none was.
struct NvdisasmLookup {
  std::string Path;   ///< absolute path; "" when none was found
  std::string Origin; ///< "--nvdisasm", "PATH", "triton package"
  std::string WhyNot; ///< when Path is "": what was searched
};

/// Looks for nvdisasm: Explicit when given (it must be an executable file,
/// else the error names it), else on PATH, else the copy an installed
/// `triton` package carries (<site-packages>/triton/backends/nvidia/bin/
/// nvdisasm, under lib/python3*/{site,dist}-packages of $VIRTUAL_ENV,
/// $CONDA_PREFIX, the python3 on PATH, ~/.local, /usr/local, /usr). Only
/// file names are looked at; no Python is run.
llvm::Expected<NvdisasmLookup> findNvdisasm(llvm::StringRef Explicit);

/// The options of a run that may disassemble: defaultCacheDir() and the
/// nvdisasm findNvdisasm(ExplicitNvdisasm) finds, or why there is none.
/// Every verb's --nvdisasm goes through it.
llvm::Expected<AnalysisOptions>
analysisOptions(llvm::StringRef ExplicitNvdisasm);

/// Why KernelView::sass() cannot give K's SASS (no .sass or .cuobjdump.sass,
/// and no cubin or no nvdisasm to make one), or nullopt when it can.
std::optional<std::string> sassUnavailable(const Kernel &K,
                                           const AnalysisOptions &Opts);

/// The cached SASS of CubinPath: <CacheDir>/sass/<nvdisasm id>/<XXH3 of
/// the cubin's bytes>.sass, made with `Nvdisasm -c -gi CubinPath` when absent
/// (written to a temporary file and renamed, so a reader never sees half a
/// file). The nvdisasm id is a hash of its path, size and time, so a new
/// nvdisasm makes new files. Returns the path of the .sass, or MissingStage
/// when nvdisasm cannot decode the cubin's architecture (it is older).
llvm::Expected<std::string> disassembleCubin(llvm::StringRef CubinPath,
                                             llvm::StringRef Nvdisasm,
                                             llvm::StringRef CacheDir);

class KernelView {
public:
  explicit KernelView(const Kernel &K, const AnalysisOptions &Opts = {});
  ~KernelView();
  KernelView(const KernelView &) = delete;
  KernelView &operator=(const KernelView &) = delete;

  const Kernel &kernel() const { return K; }
  const AnalysisOptions &options() const { return Opts; }

  /// Each returns the parsed stage, a MissingStage error when the kernel has
  /// no such stage, or the InputError of a file that could not be read.
  llvm::Expected<const PtxModule &> ptx();
  /// The .sass file, else the .cuobjdump.sass, else the cubin disassembled
  /// with AnalysisOptions::Nvdisasm into the cache directory.
  llvm::Expected<const SassModule &> sass();
  llvm::Expected<const CubinInfo &> cubin();
  llvm::Expected<const TtgirModule &> ttgir();
  /// The TTGIR when an earlier ttgir() read it, else null: never reads.
  const TtgirModule *ttgirIfRead() const { return Ttgir.Value.get(); }
  /// The PTX if an earlier ptx() (or borrowParsed) already holds it, else
  /// null; never parses: a check that could answer from a prescan of the
  /// text uses the parse instead when it is there anyway.
  const PtxModule *parsedPtx() const { return Ptx.Value.get(); }

  /// The ttg.convert_layout ops of the TTGIR with their layouts and costs
  /// (gestell/utils/ModuleConversions.h), made on first use and shared by every
  /// check that asks, until release(); ttgir()'s error when it does not read.
  llvm::Expected<ModuleConversions &> conversions();
  /// The family and mapping of every instruction of M, which must be what
  /// ptx() or sass() of this view returned (gestell/StageFamilies.h), in the
  /// run's table (FamilyTable::active()): classified once per distinct
  /// opcode on first use, kept until release().
  const StageFamilies &families(const PtxModule &M);
  const StageFamilies &families(const SassModule &M);
  /// countInstructions of M by families(M) (gestell/InstructionCounts.h):
  /// counted once, kept until release(). Each count rule of a pack, the
  /// summary of stats and diff read them.
  const StageCounts &counts(const PtxModule &M);
  const StageCounts &counts(const SassModule &M);

  /// The file the SASS was read from (set by sass(); "" before or when
  /// there is none): the bundle's .sass, or a file in the cache directory.
  llvm::StringRef sassPath() const { return SassPath; }

  /// The file of the cache directory that sass() reads when the kernel has
  /// no .sass of its own (made from the cubin with nvdisasm on first use,
  /// once per view); none when it has one or none can be made (sass() then
  /// says why). What is derived from that file alone may be cached beside
  /// it.
  std::optional<std::string> cachedSassPath();

  /// What reading the stages parsed so far had to say that is neither a
  /// finding nor an error ("file:line: note text"): a SASS listing that
  /// holds the disassembler's own warnings, which were skipped.
  std::vector<std::string> readerNotes() const;

  /// The stages requested so far that are present but could not be read,
  /// each as its error ("file:line:col: what was expected"): the engine
  /// reports each once per kernel, whichever checks asked for it, and also
  /// when a check carried on without that stage.
  struct ReadError {
    std::string Text; ///< the whole message, location first
    std::string Path; ///< the file, when the error names one
    unsigned Line = 0, Column = 0;
  };
  std::vector<ReadError> readErrors() const;
  /// Starts a new window for readErrorsSinceMark(): a view that one pass
  /// has read (gestell diff's summary) and another reads again (the checks)
  /// tells each pass only what it asked for.
  void markReads();
  /// readErrors() of the stages requested since the last markReads() (since
  /// the view was made when there was none), whether or not an earlier
  /// request had parsed them already.
  std::vector<ReadError> readErrorsSinceMark() const;

  /// Drops every parsed stage (memory must not grow with kernel count).
  void release();

  /// Shares Twin's stages that read without error (and what is derived
  /// from them) instead of parsing them again: gestell diff checks a
  /// kernel that a build left untouched with its baseline twin's parses.
  /// Twin's kernel must hold the same bytes in every stage file (metadata,
  /// TTGIR, PTX, cubin, SASS); only the paths differ. What checks make of
  /// shared stages names Twin's files: ownPaths() gives this kernel's. When
  /// Twin is also this kernel's baseline, a location a check puts in the
  /// baseline's files reads as this kernel's (the same bytes): gestell diff
  /// shows only results that differ from the baseline's, which such a twin
  /// never has.
  void borrowParsed(const KernelView &Twin);
  /// Offers Donor's parses to this view: when this view first reads its
  /// TTGIR or PTX and that file holds the same bytes as the one
  /// Donor parsed (compared then, byte for byte), Donor's parse and what
  /// is derived from it (conversions, families, counts) are shared instead
  /// of made again. An autotuned cache holds configs whose artifacts are
  /// identical (num_stages where the loop is not pipelined): check runs
  /// kernels with the same .ttgir one after the other, each offered the
  /// previous one's view. Donor must outlive this view's checks.
  /// ownPaths() then names this kernel's files where a check named the
  /// files of the kernel that parsed them.
  void offerParses(const KernelView &Donor);
  /// D, or a text, with each file of the twin (borrowParsed) replaced by
  /// this kernel's file of the same stage; unchanged when nothing was
  /// borrowed.
  void ownPaths(Diagnostic &D) const;
  std::string ownPaths(llvm::StringRef Text) const;

private:
  template <typename T> struct Slot {
    std::shared_ptr<const T> Value; ///< shared with borrowParsed views
    /// Set once the stage failed: makes the same error again.
    std::function<llvm::Error()> Failure;
    /// The failure, unless the stage is just missing (Text empty).
    ReadError Unread;
    /// Requested since the last markReads().
    bool Requested = false;
  };
  template <typename T, typename ParseFn>
  llvm::Expected<const T &> load(Slot<T> &S, ParseFn Parse);
  llvm::Error missing(Stage S, const llvm::Twine &Reason) const;
  /// disassembleCubin of the kernel's cubin, run once per view.
  llvm::Expected<std::string> disassembled();

  const Kernel &K;
  AnalysisOptions Opts;
  std::string SassPath;
  std::optional<std::string> Disassembled;         ///< disassembled()'s answer,
  std::function<llvm::Error()> DisassemblyFailure; ///< or its error
  Slot<PtxModule> Ptx;
  Slot<SassModule> Sass;
  Slot<CubinInfo> Cubin;
  Slot<TtgirModule> Ttgir;
  // Derived from the stages above, so declared after them (dropped first).
  std::shared_ptr<ModuleConversions> Conversions;
  std::shared_ptr<StageFamilies> PtxFamilies, SassFamilies;
  std::shared_ptr<StageCounts> PtxCounts, SassCounts;
  /// The kernel whose stages were borrowed (borrowParsed, offerParses), or
  /// null, and which of its stages (bit N: Stage N).
  const Kernel *Lender = nullptr;
  unsigned Borrowed = 0;
  /// offerParses's view, or null.
  const KernelView *Donor = nullptr;
  /// Takes the parse of stage S (this view's slot Mine, the donor's slot
  /// Theirs) when the donor holds one and SameBytes() says the files match;
  /// true when it did (the caller then takes what is derived from it).
  template <typename T>
  bool takeFromDonor(Slot<T> &Mine, Slot<T> KernelView::*Theirs, Stage S,
                     llvm::function_ref<bool()> SameBytes);
};

} // namespace gestell

#endif
