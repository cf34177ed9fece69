//===- gestell/Check.h - The base class of every check --------------------===//
//
// A check is one small class, modeled on clang-tidy's ClangTidyCheck:
//
//   class NarrowLoadCheck : public gestell::Check {
//   public:
//     static gestell::CheckInfo info();        // metadata, in one place
//     NarrowLoadCheck(llvm::StringRef Name, gestell::CheckContext &Context)
//         : Check(Name, Context), MinCount(Options.get("MinCount", 1)) {}
//     void storeOptions(gestell::OptionMap &Opts) const override {
//       Options.store(Opts, "MinCount", MinCount);
//     }
//     llvm::Error check(gestell::CheckInput &In) override;
//   private:
//     const unsigned MinCount;
//   };
//
// The engine makes one instance per kernel (so a check may keep state while
// it looks at a kernel, and needs no locking), calls check() once, and
// collects what diag() reported. A check that returns an Error or throws
// becomes a tool notification for that kernel; the other results stand.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_CHECK_H
#define GESTELL_CHECK_H

#include "gestell/Bundle.h"
#include "gestell/Diagnostic.h"
#include "gestell/KernelView.h"
#include "gestell/Options.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace gestell {

/// Everything known about a check before it runs. It feeds registration,
/// --list-checks, the docs and the SARIF rule: write it once per check.
struct CheckInfo {
  /// "<module>-<name>": lowercase letters, digits and '-'; the module
  /// prefix is the registering plugin's name ("nvidia-register-spill").
  std::string Id;
  /// One sentence, no final period: the header comment, --list-checks, the
  /// doc page's first line and SARIF shortDescription.
  std::string Summary;
  /// A paragraph for SARIF fullDescription; empty = Summary.
  std::string Description;
  /// "performance", "correctness", "portability", ...
  std::string Category = "performance";
  /// Labels besides the category and the module, for SARIF properties.tags
  /// (a rule pack's `tags`: "blackwell", "layout").
  std::vector<std::string> Tags;
  Level DefaultLevel = Level::Warning;
  /// The stages the check reads. The engine runs the check on a kernel only
  /// when all of them are present, and parses only what checks ask for.
  std::vector<Stage> Stages;
  /// Enabled when no config or glob says otherwise.
  bool EnabledByDefault = true;
  /// The doc page: an absolute URL, or a path relative to gestell's docs
  /// (default "checks/<id>.md").
  std::string DocPage;
  /// How often a finding is true, as measured on real code (the doc page's
  /// "On real code" table): "very-high", "high", "medium" or "low". SARIF
  /// rule property `precision` (GitHub code scanning sorts and filters by
  /// it).
  std::string Precision = "medium";
  /// Options whose value names a program to run or a file to read (a
  /// ptxas). Only a config named on the command line (--config) may set
  /// them: a .gestell.toml found beside the scanned files is data, and one
  /// that sets such an option stops the run (docs/config.md, "Trust").
  std::vector<std::string> ProgramOptions;
};

/// What a check looks at: one kernel, and, with --baseline, the kernel of
/// the baseline build that matches it (by name, target and signature).
struct CheckInput {
  KernelView &Kernel;
  /// The baseline's matching kernel; null without --baseline or when no
  /// baseline kernel matches. Checks that compare with a baseline use it;
  /// against a baseline whose files hold the kernel's own bytes, a check
  /// reports what it reports without one (gestell diff does not check such
  /// an untouched pair at all).
  KernelView *Baseline = nullptr;
};

/// What the engine gives a check instance: its configured options and the
/// place its diagnostics go. Made by the engine, never by a check.
class CheckContext {
public:
  CheckContext(const CheckInfo &Info, const ConfiguredOptions *Options)
      : Info(Info), Options(Options) {}

  const CheckInfo &info() const { return Info; }
  const ConfiguredOptions *options() const { return Options; }

  std::vector<Diagnostic> &diagnostics() { return Diags; }
  /// Option values of the wrong type, as "file:line:col: message".
  std::vector<std::string> &optionErrors() { return OptionErrors; }

private:
  const CheckInfo &Info;
  const ConfiguredOptions *Options;
  std::vector<Diagnostic> Diags;
  std::vector<std::string> OptionErrors;
};

/// Adds detail to a diagnostic that diag() just made. Valid until the next
/// diag() call of the same check.
class DiagnosticBuilder {
public:
  DiagnosticBuilder(std::vector<Diagnostic> &Diags, size_t Index)
      : Diags(&Diags), Index(Index) {}

  /// A note at the primary location (threshold checks: one per metric).
  DiagnosticBuilder &note(const llvm::Twine &Message);
  /// A note at another location.
  DiagnosticBuilder &note(const DiagLoc &Loc, const llvm::Twine &Message);
  /// The matching line of another stage (or another line of this one).
  DiagnosticBuilder &related(DiagLoc Loc, const llvm::Twine &Message = "");
  /// The Python source line the debug info points to.
  DiagnosticBuilder &source(DiagLoc Loc);
  /// Same, when there is one (pythonSource() in Locate.h may find none).
  DiagnosticBuilder &source(std::optional<DiagLoc> Loc);
  /// Where in the compiler to look: Where names the stage or pass.
  DiagnosticBuilder &hint(const llvm::Twine &Where, const llvm::Twine &Message);
  /// Appends a part of the fingerprint context (op names and canonical
  /// layouts, or opcodes; see Diagnostic::Context).
  DiagnosticBuilder &context(const llvm::Twine &Part);
  /// Overrides the level (e.g. a remark where a conversion is free).
  DiagnosticBuilder &level(Level L);
  /// An op this finding is about (Diagnostic::Causes; call once per op):
  /// findings of several checks that share a cause are merged into one.
  DiagnosticBuilder &cause(const DiagLoc &Loc);

  Diagnostic &get() { return (*Diags)[Index]; }

private:
  std::vector<Diagnostic> *Diags;
  size_t Index;
};

class Check {
public:
  /// Name is the check id under which it was registered.
  Check(llvm::StringRef Name, CheckContext &Context);
  virtual ~Check();
  Check(const Check &) = delete;
  Check &operator=(const Check &) = delete;

  /// Looks at one kernel and reports through diag(). Return an Error (or
  /// throw) when the check cannot do its job on this kernel, e.g. a stage
  /// it needs does not parse: the engine turns it into a tool notification.
  virtual llvm::Error check(CheckInput &In) = 0;

  /// Writes every option with its effective value (for --dump-config and
  /// --verify-config, which flags configured keys the check does not know).
  virtual void storeOptions(OptionMap &Opts) const {}

  llvm::StringRef name() const { return Name; }
  const CheckInfo &info() const { return Context.info(); }

protected:
  /// Reports at Loc with the check's default level, tagged with its id.
  DiagnosticBuilder diag(const DiagLoc &Loc, const llvm::Twine &Message);
  DiagnosticBuilder diag(const DiagLoc &Loc, const llvm::Twine &Message,
                         Level L);

  OptionsView Options;

private:
  std::string Name;
  CheckContext &Context;
};

} // namespace gestell

#endif
