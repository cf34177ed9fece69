//===- Options.cpp - Typed per-check options ------------------------------===//
#include "gestell/Options.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace llvm;

namespace gestell {

OptionsView::OptionsView(StringRef CheckId, const ConfiguredOptions *Configured,
                         std::vector<std::string> *Errors)
    : CheckId(CheckId.str()), Configured(Configured), Errors(Errors) {}

const OptionValue *OptionsView::find(StringRef Key) const {
  if (!Configured)
    return nullptr;
  auto It = Configured->find(Key);
  return It == Configured->end() ? nullptr : &It->second;
}

void OptionsView::typeError(const OptionValue &V, StringRef Key,
                            StringRef Expected) const {
  if (!Errors)
    return;
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (!V.Origin.empty())
    OS << V.Origin << ": ";
  OS << "option '" << Key << "' of check '" << CheckId << "' must be "
     << Expected << ", got " << formatOption(V.Value);
  Errors->push_back(std::move(Msg));
}

std::optional<int64_t> OptionsView::getInteger(StringRef Key, int64_t Min,
                                               uint64_t Max) const {
  const OptionValue *V = find(Key);
  if (!V)
    return std::nullopt;
  const int64_t *I = std::get_if<int64_t>(&V->Value);
  if (!I) {
    typeError(*V, Key, "an integer");
    return std::nullopt;
  }
  if (*I < Min || (*I >= 0 && static_cast<uint64_t>(*I) > Max)) {
    typeError(*V, Key,
              "an integer from " + std::to_string(Min) + " to " +
                  std::to_string(Max));
    return std::nullopt;
  }
  return *I;
}

bool OptionsView::get(StringRef Key, bool Default) const {
  const OptionValue *V = find(Key);
  if (!V)
    return Default;
  if (const bool *B = std::get_if<bool>(&V->Value))
    return *B;
  typeError(*V, Key, "true or false");
  return Default;
}

double OptionsView::get(StringRef Key, double Default) const {
  const OptionValue *V = find(Key);
  if (!V)
    return Default;
  if (const double *D = std::get_if<double>(&V->Value))
    return *D;
  if (const int64_t *I = std::get_if<int64_t>(&V->Value))
    return static_cast<double>(*I);
  typeError(*V, Key, "a number");
  return Default;
}

std::string OptionsView::get(StringRef Key, const char *Default) const {
  return get(Key, StringRef(Default));
}

std::string OptionsView::get(StringRef Key, StringRef Default) const {
  const OptionValue *V = find(Key);
  if (!V)
    return Default.str();
  if (const std::string *S = std::get_if<std::string>(&V->Value))
    return *S;
  typeError(*V, Key, "a string");
  return Default.str();
}

void OptionsView::store(OptionMap &Opts, StringRef Key, bool Value) const {
  Opts[Key.str()] = Value;
}
void OptionsView::store(OptionMap &Opts, StringRef Key, double Value) const {
  Opts[Key.str()] = Value;
}
void OptionsView::store(OptionMap &Opts, StringRef Key, StringRef Value) const {
  Opts[Key.str()] = Value.str();
}

std::string formatOption(const OptionScalar &V) {
  std::string Out;
  raw_string_ostream OS(Out);
  if (const bool *B = std::get_if<bool>(&V)) {
    OS << (*B ? "true" : "false");
  } else if (const int64_t *I = std::get_if<int64_t>(&V)) {
    OS << *I;
  } else if (const double *D = std::get_if<double>(&V)) {
    if (std::isnan(*D))
      OS << "nan";
    else if (std::isinf(*D))
      OS << (*D < 0 ? "-inf" : "inf");
    else {
      // Shortest spelling that reads back the same; keep a '.' so TOML
      // still sees a float.
      char Buf[32];
      for (int P = 1; P <= 17; ++P) {
        snprintf(Buf, sizeof(Buf), "%.*g", P, *D);
        if (std::strtod(Buf, nullptr) == *D)
          break;
      }
      std::string S = Buf;
      if (S.find_first_of(".eE") == std::string::npos)
        S += ".0";
      OS << S;
    }
  } else {
    OS << '"';
    for (char C : std::get<std::string>(V)) {
      switch (C) {
      case '"':
        OS << "\\\"";
        break;
      case '\\':
        OS << "\\\\";
        break;
      case '\n':
        OS << "\\n";
        break;
      case '\t':
        OS << "\\t";
        break;
      default:
        if (static_cast<unsigned char>(C) < 0x20)
          OS << format("\\u%04x", C);
        else
          OS << C;
      }
    }
    OS << '"';
  }
  return Out;
}

} // namespace gestell
