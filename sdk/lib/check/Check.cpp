//===- Check.cpp - The base class of every check --------------------------===//
#include "gestell/Check.h"

using namespace llvm;

namespace gestell {

Check::Check(StringRef Name, CheckContext &Context)
    : Options(Name, Context.options(), &Context.optionErrors()),
      Name(Name.str()), Context(Context) {}

Check::~Check() = default;

DiagnosticBuilder Check::diag(const DiagLoc &Loc, const Twine &Message) {
  return diag(Loc, Message, Context.info().DefaultLevel);
}

DiagnosticBuilder Check::diag(const DiagLoc &Loc, const Twine &Message,
                              Level L) {
  std::vector<Diagnostic> &Diags = Context.diagnostics();
  Diagnostic &D = Diags.emplace_back();
  D.CheckId = Name;
  D.Severity = L;
  D.Message = Message.str();
  D.Primary = Loc;
  return DiagnosticBuilder(Diags, Diags.size() - 1);
}

DiagnosticBuilder &DiagnosticBuilder::note(const Twine &Message) {
  get().Notes.push_back({Message.str(), std::nullopt});
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::note(const DiagLoc &Loc,
                                           const Twine &Message) {
  get().Notes.push_back({Message.str(), Loc});
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::related(DiagLoc Loc,
                                              const Twine &Message) {
  std::string M = Message.str();
  if (!M.empty())
    Loc.Message = std::move(M);
  get().Related.push_back(std::move(Loc));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::source(DiagLoc Loc) {
  Loc.ArtifactStage.reset();
  get().SourceLoc = std::move(Loc);
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::source(std::optional<DiagLoc> Loc) {
  if (Loc)
    source(std::move(*Loc));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::hint(const Twine &Where,
                                           const Twine &Message) {
  get().Hint = FixHint{Where.str(), Message.str()};
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::context(const Twine &Part) {
  get().Context.push_back(Part.str());
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::level(Level L) {
  get().Severity = L;
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::cause(const DiagLoc &Loc) {
  DiagLoc C = Loc;
  C.Message.clear();
  get().Causes.push_back(std::move(C));
  return *this;
}

} // namespace gestell
