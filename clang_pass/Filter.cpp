//===- Filter.cpp - which functions the commhint pass instruments ---------===//
//
// See Filter.h for the pattern syntax.
//
//===----------------------------------------------------------------------===//

#include "Filter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <fnmatch.h>

using namespace llvm;

namespace commhint {

// fnmatch() accepts anything; reject what is certainly a typo: an empty glob
// or a bracket expression that is never closed.
static bool globIsValid(StringRef Glob) {
  if (Glob.empty())
    return false;
  for (size_t I = 0; I < Glob.size(); ++I) {
    if (Glob[I] == '\\') {
      ++I;
      continue;
    }
    if (Glob[I] != '[')
      continue;
    size_t J = I + 1;
    if (J < Glob.size() && (Glob[J] == '!' || Glob[J] == '^'))
      ++J;
    if (J < Glob.size() && Glob[J] == ']')
      ++J;
    while (J < Glob.size() && Glob[J] != ']')
      ++J;
    if (J >= Glob.size())
      return false;
    I = J;
  }
  return true;
}

bool Filter::addPattern(StringRef Text, StringRef Origin, std::string &Err) {
  StringRef T = Text.trim();
  if (T.empty())
    return true;
  Pattern P;
  P.Exclude = T.consume_front("!");
  T = T.ltrim();
  if (T.consume_front("file:"))
    P.IsFile = true;
  else if (T.consume_front("func:"))
    P.IsFile = false;
  else {
    Err = ("bad commhint filter pattern, expected [!]file:GLOB or "
           "[!]func:GLOB: pattern=" +
           Text.trim() + " origin=" + Origin)
              .str();
    return false;
  }
  if (!globIsValid(T)) {
    Err = ("bad commhint filter pattern, the glob is empty or has an "
           "unclosed '[': pattern=" +
           Text.trim() + " origin=" + Origin)
              .str();
    return false;
  }
  P.Glob = T.str();
  HasInclude |= !P.Exclude;
  Patterns.push_back(std::move(P));
  return true;
}

bool Filter::addList(StringRef List, StringRef Origin, std::string &Err) {
  SmallVector<StringRef, 8> Parts;
  List.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef Part : Parts)
    if (!addPattern(Part, Origin, Err))
      return false;
  return true;
}

bool Filter::addFile(StringRef Path, std::string &Err) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf) {
    Err = ("cannot read the commhint filter file: file=" + Path +
           " reason=" + Buf.getError().message())
              .str();
    return false;
  }
  SmallVector<StringRef, 32> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  unsigned LineNo = 0;
  for (StringRef Line : Lines) {
    ++LineNo;
    Line = Line.split('#').first;
    if (!addPattern(Line, (Path + ":" + Twine(LineNo)).str(), Err))
      return false;
  }
  return true;
}

bool Filter::addFromEnvironment(StringRef OptionValue, std::string &Err) {
  if (const char *Env = std::getenv("COMMHINT_FILTER"))
    if (!addList(Env, "COMMHINT_FILTER", Err))
      return false;
  if (!OptionValue.empty() && !addList(OptionValue, "-commhint-filter", Err))
    return false;
  if (const char *File = std::getenv("COMMHINT_FILTER_FILE"))
    if (*File && !addFile(File, Err))
      return false;
  return true;
}

bool Filter::matches(const Pattern &P, const Function &F,
                     const std::vector<std::string> &Files) const {
  if (!P.IsFile)
    return fnmatch(P.Glob.c_str(), F.getName().str().c_str(), 0) == 0;
  for (const std::string &File : Files)
    if (fnmatch(P.Glob.c_str(), File.c_str(), 0) == 0)
      return true;
  return false;
}

bool Filter::shouldInstrument(const Function &F, const Module &M) const {
  if (Patterns.empty())
    return true;
  // The file names a function is known by: its DISubprogram's file (as
  // written and made absolute) and the module's source file, each also by
  // its basename.
  std::vector<std::string> Files;
  auto Add = [&](StringRef Name) {
    if (Name.empty())
      return;
    Files.push_back(Name.str());
    StringRef Base = sys::path::filename(Name);
    if (Base != Name)
      Files.push_back(Base.str());
  };
  if (const DISubprogram *SP = F.getSubprogram()) {
    StringRef Name = SP->getFilename();
    Add(Name);
    if (!Name.empty() && !sys::path::is_absolute(Name) &&
        !SP->getDirectory().empty())
      Add((SP->getDirectory() + "/" + Name).str());
  }
  Add(M.getSourceFileName());

  bool Included = !HasInclude;
  for (const Pattern &P : Patterns) {
    if (P.Exclude) {
      if (matches(P, F, Files))
        return false;
    } else if (!Included && matches(P, F, Files)) {
      Included = true;
    }
  }
  return Included;
}

} // namespace commhint
