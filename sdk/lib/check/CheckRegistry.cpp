//===- CheckRegistry.cpp - The checks a run can use -----------------------===//
#include "gestell/CheckRegistry.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;

namespace gestell {

CheckRegistry::CheckRegistry(RegistryEnvironment Env) : Env(std::move(Env)) {}
CheckRegistry::~CheckRegistry() = default;

bool isValidCheckId(StringRef Id) {
  if (Id.empty() || Id.front() == '-' || Id.back() == '-' || Id.contains("--"))
    return false;
  return all_of(Id,
                [](char C) { return isLower(C) || isDigit(C) || C == '-'; });
}

void CheckRegistry::add(CheckInfo Info, CheckFactory Factory) {
  auto Problem = [&](const Twine &Msg) {
    Problems.push_back(("check '" + Info.Id + "': " + Msg).str());
  };
  if (!InModule) {
    Problem("added outside a module's registration");
    return;
  }
  if (!isValidCheckId(Info.Id)) {
    Problem("invalid id: use lowercase letters, digits and '-'");
    return;
  }
  if (!StringRef(Info.Id).starts_with(Module + "-")) {
    Problem("id must start with the module name '" + Module + "-'");
    return;
  }
  if (Info.Summary.empty())
    Problem("empty summary");
  if (!Factory)
    Problem("no factory");
  if (const RegisteredCheck *Old = find(Info.Id)) {
    Problem("already registered by module '" + Old->Module + "'");
    return;
  }
  for (size_t I = ModuleBegin; I < Checks.size(); ++I)
    if (Checks[I].Info.Id == Info.Id) {
      Problem("registered twice");
      return;
    }
  if (Info.DocPage.empty())
    Info.DocPage = "checks/" + Info.Id + ".md";
  Checks.push_back({Keep, std::move(Info), std::move(Factory), Module});
}

void CheckRegistry::fail(const Twine &Message) {
  Problems.push_back(Message.str());
}

const RegisteredCheck *CheckRegistry::find(StringRef Id) const {
  // Sorted part first (binary search), then the module being registered.
  auto End = Checks.begin() + (InModule ? ModuleBegin : Checks.size());
  auto It = std::lower_bound(
      Checks.begin(), End, Id,
      [](const RegisteredCheck &C, StringRef Id) { return C.Info.Id < Id; });
  if (It != End && It->Info.Id == Id)
    return &*It;
  return nullptr;
}

void CheckRegistry::beginModule(StringRef Name,
                                std::shared_ptr<const void> Library) {
  assert(!InModule && "modules do not nest");
  Module = Name.str();
  Keep = std::move(Library);
  ModuleBegin = Checks.size();
  InModule = true;
  Problems.clear();
}

Error CheckRegistry::endModule() {
  assert(InModule && "endModule without beginModule");
  InModule = false;
  Keep.reset();
  if (!Problems.empty()) {
    Checks.erase(Checks.begin() + ModuleBegin, Checks.end());
    std::string Msg = join(Problems, "; ");
    Problems.clear();
    return createStringError(inconvertibleErrorCode(), Msg);
  }
  std::sort(Checks.begin(), Checks.end(),
            [](const RegisteredCheck &A, const RegisteredCheck &B) {
              return A.Info.Id < B.Info.Id;
            });
  return Error::success();
}

} // namespace gestell
