//===- Metric.cpp - Metrics: names and spellings --------------------------===//
#include "gestell/Metric.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"

using namespace llvm;

namespace gestell {

MetricProvider::~MetricProvider() = default;

StringRef resourceName(Resource R) {
  switch (R) {
  case Resource::Registers:
    return "registers";
  case Resource::Stack:
    return "stack";
  case Resource::Local:
    return "local";
  case Resource::SharedStatic:
    return "shared_static";
  case Resource::SharedDynamic:
    return "shared_dynamic";
  case Resource::BlocksPerSM:
    return "blocks_per_sm";
  case Resource::WarpsPerSM:
    return "warps_per_sm";
  case Resource::Occupancy:
    return "occupancy";
  }
  return "registers";
}

static bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

static std::string quoted(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

std::string Metric::str() const {
  std::string Out = Side == MetricSide::Base ? "base." : "head.";
  if (Stage == MetricStage::PTX)
    Out += "ptx.";
  else if (Stage == MetricStage::SASS)
    Out += "sass.";
  switch (Kind) {
  case MetricKind::Opcode:
    Out += "op(" + quoted(Name) + ")";
    break;
  case MetricKind::Family:
    Out += isIdentifier(Name) ? Name : "family(" + quoted(Name) + ")";
    break;
  case MetricKind::Instructions:
  case MetricKind::Other:
  case MetricKind::Resource:
    Out += Name;
    break;
  }
  if (InLoops)
    Out += ".loop";
  return Out;
}

bool Metric::matchesOpcode(StringRef Opcode) const {
  if (Glob)
    return Glob->match(Opcode);
  return Opcode == Name ||
         (Opcode.starts_with(Name) && Opcode.size() > Name.size() &&
          Opcode[Name.size()] == '.');
}

MetricStage Metric::opcodeStage() const {
  bool Lower = any_of(Name, [](char C) { return isLower(C); });
  bool Upper = any_of(Name, [](char C) { return isUpper(C); });
  if (Lower)
    return MetricStage::PTX;
  if (Upper)
    return MetricStage::SASS;
  return MetricStage::Default;
}

} // namespace gestell
