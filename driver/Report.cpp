//===- Report.cpp - What every reporter shares ----------------------------===//
#include "Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace llvm;

namespace gestell::driver {

std::string kernelLabel(const Kernel &K) {
  // A kernel of a trace: its event ("TRACE:LINE") and name.
  if (K.Trace)
    return K.Dir + " (" + K.Name + ")";
  return K.Dir + "/" + K.Name;
}

std::string kernelList(ArrayRef<std::string> Labels) {
  constexpr size_t Shown = 8;
  std::string Out;
  for (size_t I = 0; I < Labels.size() && I < Shown; ++I)
    Out += "\n  " + Labels[I];
  if (Labels.size() > Shown)
    Out += "\n  ... and " + std::to_string(Labels.size() - Shown) + " more";
  return Out;
}

namespace {
/// Writes straight into something that is not a regular file (a FIFO, a
/// device such as /dev/null, or a link to one): replacing it would turn it
/// into a file.
bool writeThrough(StringRef Path, StringRef Me,
                  function_ref<void(raw_ostream &)> Write) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::CD_OpenExisting, sys::fs::FA_Write,
                    sys::fs::OF_None);
  if (EC) {
    errs() << Me << "cannot write " << Path << ": " << EC.message() << "\n";
    return false;
  }
  Write(OS);
  OS.flush();
  if (OS.has_error()) {
    errs() << Me << "cannot write " << Path << ": " << OS.error().message()
           << "\n";
    OS.clear_error();
    return false;
  }
  return true;
}
} // namespace

bool writeOutput(StringRef Path, StringRef Me,
                 function_ref<void(raw_ostream &)> Write) {
  if (Path.empty()) {
    Write(outs());
    outs().flush();
    return true;
  }
  // A regular file (or a link to one) is replaced atomically: the report is
  // written beside the file the link names and renamed over it, so a reader
  // never sees half of it and the link stays a link.
  std::string Target = Path.str();
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St)) {
    if (St.type() == sys::fs::file_type::directory_file) {
      errs() << Me << "cannot write " << Path << ": it is a folder\n";
      return false;
    }
    if (St.type() != sys::fs::file_type::regular_file)
      return writeThrough(Path, Me, Write);
    SmallString<256> Real;
    if (!sys::fs::real_path(Path, Real))
      Target = std::string(Real);
  }
  Expected<sys::fs::TempFile> T =
      sys::fs::TempFile::create(Target + "-%%%%%%%%.tmp");
  if (!T) {
    errs() << Me << "cannot write " << Path << ": " << toString(T.takeError())
           << "\n";
    return false;
  }
  bool Failed;
  {
    raw_fd_ostream OS(T->FD, /*shouldClose=*/false);
    Write(OS);
    OS.flush();
    Failed = OS.has_error();
    OS.clear_error();
  }
  if (Failed) {
    consumeError(T->discard());
    errs() << Me << "cannot write " << Path << "\n";
    return false;
  }
  if (Error E = T->keep(Target)) {
    errs() << Me << "cannot write " << Path << ": " << toString(std::move(E))
           << "\n";
    return false;
  }
  return true;
}

StringRef levelPrefix(Level L) {
  return L == Level::Error ? "" : L == Level::Warning ? "warning: " : "note: ";
}

StringRef sarifLevel(Level L) {
  switch (L) {
  case Level::Remark:
    return "note";
  case Level::Warning:
    return "warning";
  case Level::Error:
    return "error";
  }
  llvm_unreachable("unknown level");
}

std::vector<std::string> PathMap::targets() const {
  std::vector<std::string> Out;
  for (const auto &[From, To] : Rules)
    Out.push_back(To);
  return Out;
}

Error PathMap::add(StringRef Spec) {
  auto [From, To] = Spec.split('=');
  if (From.empty() || !Spec.contains('='))
    return createStringError(inconvertibleErrorCode(),
                             "--path-map: expected FROM=TO, got '%s'",
                             Spec.str().c_str());
  std::string F = From.str();
  while (F.size() > 1 && F.back() == '/')
    F.pop_back();
  Rules.push_back({F, To.str()});
  return Error::success();
}

std::string PathMap::map(StringRef Path) const {
  const std::pair<std::string, std::string> *Best = nullptr;
  for (const auto &R : Rules) {
    StringRef F = R.first;
    if (!Path.starts_with(F))
      continue;
    // Match whole folders: "/src" maps "/src/k.py", not "/srcs/k.py".
    if (Path.size() != F.size() && F != "/" && Path[F.size()] != '/')
      continue;
    if (!Best || F.size() > Best->first.size())
      Best = &R;
  }
  if (!Best)
    return Path.str();
  StringRef Rest = Path.drop_front(Best->first.size());
  if (Best->first == "/")
    Rest = Path.drop_front(1);
  else
    Rest.consume_front("/");
  if (Best->second.empty() || Best->second == ".")
    return Rest.empty() ? std::string(".") : Rest.str();
  if (Rest.empty())
    return Best->second;
  SmallString<256> Out(Best->second);
  sys::path::append(Out, sys::path::Style::posix, Rest);
  return std::string(Out);
}

std::string helpUri(const CheckInfo &Info, const ReportOptions &Opts) {
  StringRef Page = Info.DocPage;
  if (Page.contains("://"))
    return Page.str();
  std::string Base = Opts.DocsUrl;
  if (!Base.empty() && Base.back() != '/')
    Base += '/';
  return Base + Page.str();
}

std::vector<std::string> resultFingerprints(const RunReport &R) {
  std::vector<std::string> Out;
  StringMap<unsigned> Seen;
  for (const Result &Res : R.Results) {
    std::string F = fingerprint(Res.Diag);
    unsigned N = ++Seen[F];
    if (N > 1)
      F += ":" + std::to_string(N);
    Out.push_back(std::move(F));
  }
  return Out;
}

namespace {
/// The bytes a path keeps as they are in a URI: RFC 3986's unreserved
/// characters, '/', and the sub-delimiters ':' and '@' a path segment may
/// hold; every other byte is percent-encoded.
constexpr std::array<bool, 256> UriKeeps = [] {
  std::array<bool, 256> T{};
  for (unsigned C = 0; C < 256; ++C)
    T[C] = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
           (C >= '0' && C <= '9');
  constexpr char Also[] = "-._~/!$&'()*+,;=:@";
  for (size_t I = 0; I + 1 < sizeof(Also); ++I)
    T[static_cast<unsigned char>(Also[I])] = true;
  return T;
}();
} // namespace

std::string pathToUri(StringRef Path) {
  std::string Out;
  Out.reserve(Path.size() + 7);
  if (sys::path::is_absolute(Path, sys::path::Style::posix))
    Out = "file://";
  static constexpr char Hex[] = "0123456789ABCDEF";
  for (char C : Path) {
    unsigned char U = static_cast<unsigned char>(C);
    if (UriKeeps[U]) {
      Out += C;
    } else {
      Out += '%';
      Out += Hex[U >> 4];
      Out += Hex[U & 15];
    }
  }
  return Out;
}

void stringAttribute(json::OStream &J, StringRef Key, StringRef S) {
  if (!all_of(S, [](char C) { return (unsigned char)C < 0x80; }) &&
      !json::isUTF8(S)) {
    J.attribute(Key, S);
    return;
  }
  J.attributeBegin(Key);
  // As json::quote escapes: '"' and '\\' with a backslash, \t \n \r, the
  // other control characters as \u00XX; every other byte as it is.
  J.rawValue([&](raw_ostream &OS) {
    OS << '"';
    const char *Run = S.begin();
    for (const char *P = S.begin(); P != S.end(); ++P) {
      unsigned char C = *P;
      if (C >= 0x20 && C != '"' && C != '\\')
        continue;
      OS.write(Run, P - Run);
      OS << '\\';
      switch (C) {
      case '"':
      case '\\':
        OS << char(C);
        break;
      case '\t':
        OS << 't';
        break;
      case '\n':
        OS << 'n';
        break;
      case '\r':
        OS << 'r';
        break;
      default:
        OS << 'u';
        write_hex(OS, C, HexPrintStyle::Lower, 4);
      }
      Run = P + 1;
    }
    OS.write(Run, S.end() - Run);
    OS << '"';
  });
  J.attributeEnd();
}

} // namespace gestell::driver
