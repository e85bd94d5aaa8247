//===- DepAnalysis.cpp - register and control dependences of sites --------===//
//
// See DepAnalysis.h.  The function is seen as a graph whose nodes are its
// values (instructions and arguments), the contents of its untraced locals
// and the control condition of each block; an edge says "is made of".  A
// node's dependences are the sites and symbols reachable from it: computed
// once per strongly connected component (Tarjan, iteratively, so that a
// large function cannot overflow the stack), successors first.
//
//===----------------------------------------------------------------------===//

#include "DepAnalysis.h"

#include "trace-format.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <algorithm>
#include <iterator>

using namespace llvm;

namespace commhint {

void mergeDeps(std::vector<Dep> &Into, const std::vector<Dep> &Add) {
  if (Add.empty())
    return;
  std::vector<Dep> Out;
  Out.reserve(Into.size() + Add.size());
  std::set_union(Into.begin(), Into.end(), Add.begin(), Add.end(),
                 std::back_inserter(Out));
  Into.swap(Out);
}

namespace {

enum NodeKind : unsigned { NValue, NContent, NControl };

// Terms are kept kind-less while the graph is solved (site or symbol); a
// site's row decides value or control by which of its roots reaches them.
constexpr uint16_t TermSite = CHT_DEP_VALUE;

// A term naming the statement (local site id) a value comes from.
Dep siteTerm(uint32_t Site) {
  Dep D;
  D.Kind = TermSite;
  D.Site = Site;
  return D;
}
constexpr uint16_t TermSym = CHT_DEP_SYM_VALUE;

struct Node {
  NodeKind Kind;
  const void *Ptr;
  std::vector<unsigned> Succ;
  std::vector<Dep> Terms;
  unsigned Index = ~0u, Low = 0, SCC = ~0u;
  bool OnStack = false;
};

bool isMPICallee(const CallBase &CB) {
  const Function *Callee =
      dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (!Callee)
    return false;
  StringRef Name = Callee->getName();
  return Name.startswith("MPI_") || Name.startswith("PMPI_");
}

// The name calls of \p CB resolve to: the callee, or "*" through a pointer.
StringRef calleeName(const CallBase &CB) {
  if (const auto *Callee =
          dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts()))
    return Callee->getName();
  return "*";
}

bool ignoredIntrinsic(const CallBase &CB) {
  const auto *II = dyn_cast<IntrinsicInst>(&CB);
  return II && (II->isAssumeLikeIntrinsic() || II->isLifetimeStartOrEnd());
}

} // namespace

struct DepAnalysis::Impl {
  Function &F;
  const FunctionPlan &Plan;
  uint32_t FirstLocal;
  PostDominatorTree &PDT;

  DenseMap<const Instruction *, uint32_t> AccessSite; // access -> local site
  DenseMap<const Instruction *, uint32_t> CallSite;   // memcpy/memset/MPI
  DenseMap<const BasicBlock *, SmallVector<const BasicBlock *, 4>> CD;
  DenseMap<const AllocaInst *, bool> Untraced;

  std::vector<Node> Nodes;
  DenseMap<std::pair<unsigned, const void *>, unsigned> NodeIndex;
  std::vector<std::vector<Dep>> SCCSets;
  std::vector<unsigned> TStack;
  unsigned NextIndex = 0;

  Impl(Function &F, const FunctionPlan &Plan, uint32_t FirstLocal,
       PostDominatorTree &PDT)
      : F(F), Plan(Plan), FirstLocal(FirstLocal), PDT(PDT) {}

  void indexSites();
  void computeCD();
  bool untracedLocal(const Value *Ptr);
  unsigned node(NodeKind K, const void *Ptr);
  void expand(unsigned Id);
  void expandValue(const Value *V, std::vector<unsigned> &Succ,
                   std::vector<Dep> &Terms);
  void expandContent(const AllocaInst *AI, std::vector<unsigned> &Succ,
                     std::vector<Dep> &Terms);
  void expandControl(const BasicBlock *BB, std::vector<unsigned> &Succ,
                     std::vector<Dep> &Terms);
  void addSym(std::vector<Dep> &Terms, int Arg);
  void solve(unsigned Root);
  const std::vector<Dep> &setOf(unsigned Id);
  std::vector<Dep> setOfValues(ArrayRef<const Value *> Vs);
};

void DepAnalysis::Impl::indexSites() {
  for (size_t K = 0; K < Plan.Sites.size(); ++K) {
    const Site &S = Plan.Sites[K];
    uint32_t Local = FirstLocal + K;
    if (S.Kind == CHT_SITE_COMP) {
      for (const Access &A : S.Accesses)
        AccessSite[A.Inst] = Local;
    } else if (S.Anchor) {
      CallSite[S.Anchor] = Local;
    }
  }
}

// Direct control dependence (AccessAnalysis::forEachControlDependence).
// Every decision counts here, loop control included: a loop's exit test
// decides how often its body runs.
void DepAnalysis::Impl::computeCD() {
  AccessAnalysis::forEachControlDependence(
      F, PDT, [&](const BasicBlock *A, const BasicBlock *B) {
        CD[B].push_back(A);
      });
}

// A local the pass does not trace: an alloca whose address never escapes
// (AccessAnalysis::isEscapingAlloca says the same).
bool DepAnalysis::Impl::untracedLocal(const Value *Ptr) {
  const auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
  if (!AI)
    return false;
  auto It = Untraced.find(AI);
  if (It == Untraced.end())
    It = Untraced.insert({AI, !AccessAnalysis::isEscapingAlloca(AI)}).first;
  return It->second;
}

unsigned DepAnalysis::Impl::node(NodeKind K, const void *Ptr) {
  auto [It, New] = NodeIndex.insert({{unsigned(K), Ptr}, Nodes.size()});
  if (New) {
    Nodes.emplace_back();
    Nodes.back().Kind = K;
    Nodes.back().Ptr = Ptr;
  }
  return It->second;
}

void DepAnalysis::Impl::addSym(std::vector<Dep> &Terms, int Arg) {
  Dep D;
  D.Kind = TermSym;
  D.Arg = static_cast<int16_t>(Arg);
  D.Func = F.getName();
  Terms.push_back(D);
  if (F.hasAddressTaken()) {
    D.Func = "*";
    Terms.push_back(D);
  }
}

// The condition a terminator decides on, or null.
static const Value *conditionOf(const Instruction *T) {
  if (const auto *BI = dyn_cast<BranchInst>(T))
    return BI->isConditional() ? BI->getCondition() : nullptr;
  if (const auto *SI = dyn_cast<SwitchInst>(T))
    return SI->getCondition();
  if (const auto *IB = dyn_cast<IndirectBrInst>(T))
    return IB->getAddress();
  return nullptr;
}

void DepAnalysis::Impl::expandValue(const Value *V,
                                    std::vector<unsigned> &Succ,
                                    std::vector<Dep> &Terms) {
  auto Use = [&](const Value *Op) {
    if (isa<Instruction>(Op) || isa<Argument>(Op))
      Succ.push_back(node(NValue, Op));
  };
  if (const auto *A = dyn_cast<Argument>(V)) {
    addSym(Terms, static_cast<int>(A->getArgNo()));
    return;
  }
  const auto *I = dyn_cast<Instruction>(V);
  if (!I)
    return;
  auto It = AccessSite.find(I);
  if (It != AccessSite.end() &&
      (isa<LoadInst>(I) || isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))) {
    // A traced read: the value is what that site's execution read.
    Terms.push_back(siteTerm(It->second));
    return;
  }
  if (const auto *Ld = dyn_cast<LoadInst>(I)) {
    Use(Ld->getPointerOperand());
    if (untracedLocal(Ld->getPointerOperand()))
      Succ.push_back(node(
          NContent, cast<AllocaInst>(getUnderlyingObject(Ld->getPointerOperand()))));
    return;
  }
  if (const auto *PN = dyn_cast<PHINode>(I)) {
    // Which value arrives is decided where the paths part.
    for (unsigned K = 0; K < PN->getNumIncomingValues(); ++K) {
      Use(PN->getIncomingValue(K));
      const BasicBlock *In = PN->getIncomingBlock(K);
      Succ.push_back(node(NControl, In));
      if (const Value *C = conditionOf(In->getTerminator()))
        Use(C);
    }
    return;
  }
  if (const auto *CB = dyn_cast<CallBase>(I)) {
    if (isMPICallee(*CB) || ignoredIntrinsic(*CB))
      return; // an MPI call's return code is not a value (docs/dependence.md)
    for (const Value *Arg : CB->args())
      Use(Arg);
    if (isa<IntrinsicInst>(CB))
      return;
    if (!CB->getCalledFunction())
      Use(CB->getCalledOperand());
    Dep D;
    D.Kind = TermSym;
    D.Arg = CHT_DEP_ARG_RET;
    D.Func = calleeName(*CB);
    Terms.push_back(D);
    // A call that is a site of its own (a heap allocation): the block it
    // returns comes from that statement
    auto CS = CallSite.find(CB);
    if (CS != CallSite.end())
      Terms.push_back(siteTerm(CS->second));
    // The statement that holds the call: a traced store of its result
    // (`buf = malloc(n)` into a global) runs right after it.
    SmallVector<const Value *, 4> Work{CB};
    for (size_t W = 0; W < Work.size() && W < 16; ++W)
      for (const User *U : Work[W]->users()) {
        if (const auto *Cast = dyn_cast<CastInst>(U))
          Work.push_back(Cast);
        else if (const auto *St = dyn_cast<StoreInst>(U))
          if (St->getValueOperand() == Work[W]) {
            auto S = AccessSite.find(St);
            if (S != AccessSite.end())
              Terms.push_back(siteTerm(S->second));
          }
      }
    return;
  }
  for (const Value *Op : I->operands())
    Use(Op);
}

// What an untraced local holds: every value stored into it, and whether
// each store ran; a memcpy into it copies what its site read.
void DepAnalysis::Impl::expandContent(const AllocaInst *AI,
                                      std::vector<unsigned> &Succ,
                                      std::vector<Dep> &Terms) {
  auto Use = [&](const Value *Op) {
    if (isa<Instruction>(Op) || isa<Argument>(Op))
      Succ.push_back(node(NValue, Op));
  };
  SmallVector<const Value *, 8> Work{AI};
  SmallPtrSet<const Value *, 8> Seen{AI};
  for (size_t W = 0; W < Work.size(); ++W) {
    const Value *P = Work[W];
    for (const User *U : P->users()) {
      const auto *I = dyn_cast<Instruction>(U);
      if (!I)
        continue;
      if (isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<PHINode>(I) ||
          isa<SelectInst>(I)) {
        if (Seen.insert(I).second)
          Work.push_back(I);
        continue;
      }
      if (const auto *St = dyn_cast<StoreInst>(I)) {
        if (St->getPointerOperand() != P)
          continue;
        Use(St->getValueOperand());
        Use(St->getPointerOperand());
        Succ.push_back(node(NControl, St->getParent()));
        continue;
      }
      if (isa<LoadInst>(I))
        continue;
      if (const auto *CB = dyn_cast<CallBase>(I)) {
        if (ignoredIntrinsic(*CB))
          continue;
        for (const Value *Arg : CB->args())
          Use(Arg);
        Succ.push_back(node(NControl, CB->getParent()));
        auto S = CallSite.find(CB);
        if (S != CallSite.end()) // a memcpy site: it read what it copied
          Terms.push_back(siteTerm(S->second));
        continue;
      }
      // atomics and anything else that may write it: its operands
      for (const Value *Op : I->operands())
        Use(Op);
      Succ.push_back(node(NControl, I->getParent()));
    }
  }
}

void DepAnalysis::Impl::expandControl(const BasicBlock *BB,
                                      std::vector<unsigned> &Succ,
                                      std::vector<Dep> &Terms) {
  addSym(Terms, CHT_DEP_ARG_ENTRY);
  auto It = CD.find(BB);
  if (It == CD.end())
    return;
  for (const BasicBlock *A : It->second) {
    Succ.push_back(node(NControl, A));
    if (const Value *C = conditionOf(A->getTerminator()))
      if (isa<Instruction>(C) || isa<Argument>(C))
        Succ.push_back(node(NValue, C));
  }
}

void DepAnalysis::Impl::expand(unsigned Id) {
  std::vector<unsigned> Succ;
  std::vector<Dep> Terms;
  NodeKind K = Nodes[Id].Kind;
  const void *Ptr = Nodes[Id].Ptr;
  switch (K) {
  case NValue:
    expandValue(static_cast<const Value *>(Ptr), Succ, Terms);
    break;
  case NContent:
    expandContent(static_cast<const AllocaInst *>(Ptr), Succ, Terms);
    break;
  case NControl:
    expandControl(static_cast<const BasicBlock *>(Ptr), Succ, Terms);
    break;
  }
  // (node() may have grown Nodes: index again)
  Nodes[Id].Succ = std::move(Succ);
  std::vector<Dep> &T = Nodes[Id].Terms;
  T.insert(T.end(), Terms.begin(), Terms.end());
}

// Iterative Tarjan from Root; every SCC it closes gets its set: its own
// terms and the sets of the SCCs it reaches.
void DepAnalysis::Impl::solve(unsigned Root) {
  struct Frame {
    unsigned Id;
    size_t Child;
  };
  std::vector<Frame> Frames;
  auto Enter = [&](unsigned Id) {
    Nodes[Id].Index = Nodes[Id].Low = NextIndex++;
    Nodes[Id].OnStack = true;
    TStack.push_back(Id);
    expand(Id);
    Frames.push_back({Id, 0});
  };
  Enter(Root);
  while (!Frames.empty()) {
    Frame &Fr = Frames.back();
    unsigned V = Fr.Id;
    if (Fr.Child < Nodes[V].Succ.size()) {
      unsigned W = Nodes[V].Succ[Fr.Child++];
      if (Nodes[W].Index == ~0u) {
        Enter(W);
      } else if (Nodes[W].OnStack) {
        Nodes[V].Low = std::min(Nodes[V].Low, Nodes[W].Index);
      }
      continue;
    }
    Frames.pop_back();
    if (!Frames.empty())
      Nodes[Frames.back().Id].Low =
          std::min(Nodes[Frames.back().Id].Low, Nodes[V].Low);
    if (Nodes[V].Low != Nodes[V].Index)
      continue;
    unsigned SCC = SCCSets.size();
    std::vector<unsigned> Members;
    for (;;) {
      unsigned W = TStack.back();
      TStack.pop_back();
      Nodes[W].OnStack = false;
      Nodes[W].SCC = SCC;
      Members.push_back(W);
      if (W == V)
        break;
    }
    std::vector<Dep> Set;
    for (unsigned M : Members) {
      Set.insert(Set.end(), Nodes[M].Terms.begin(), Nodes[M].Terms.end());
      for (unsigned S : Nodes[M].Succ)
        if (Nodes[S].SCC != SCC && Nodes[S].SCC != ~0u) {
          const std::vector<Dep> &Other = SCCSets[Nodes[S].SCC];
          Set.insert(Set.end(), Other.begin(), Other.end());
        }
    }
    std::sort(Set.begin(), Set.end());
    Set.erase(std::unique(Set.begin(), Set.end()), Set.end());
    SCCSets.push_back(std::move(Set));
  }
}

const std::vector<Dep> &DepAnalysis::Impl::setOf(unsigned Id) {
  if (Nodes[Id].SCC == ~0u)
    solve(Id);
  return SCCSets[Nodes[Id].SCC];
}

std::vector<Dep> DepAnalysis::Impl::setOfValues(ArrayRef<const Value *> Vs) {
  std::vector<Dep> Out;
  for (const Value *V : Vs)
    if (isa<Instruction>(V) || isa<Argument>(V))
      mergeDeps(Out, setOf(node(NValue, V)));
  return Out;
}

// Final kinds: what the value roots reach is a value dependence, what only
// the control root reaches a control dependence.
static std::vector<Dep> rowOf(const std::vector<Dep> &Value,
                              const std::vector<Dep> &Control) {
  std::vector<Dep> Out;
  for (Dep D : Value) {
    D.Kind = D.Kind == TermSite ? CHT_DEP_VALUE : CHT_DEP_SYM_VALUE;
    Out.push_back(D);
  }
  for (Dep D : Control) {
    if (std::binary_search(Value.begin(), Value.end(), D))
      continue;
    D.Kind = D.Kind == TermSite ? CHT_DEP_CONTROL : CHT_DEP_SYM_CONTROL;
    Out.push_back(D);
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

DepAnalysis::DepAnalysis(Function &F, const FunctionPlan &Plan,
                         uint32_t FirstLocal, PostDominatorTree &PDT)
    : P(new Impl(F, Plan, FirstLocal, PDT)) {}

DepAnalysis::~DepAnalysis() { delete P; }

std::vector<std::vector<Dep>> DepAnalysis::run(SymbolRows &Syms) {
  Impl &I = *P;
  I.indexSites();
  I.computeCD();

  std::vector<std::vector<Dep>> Rows;
  for (size_t K = 0; K < I.Plan.Sites.size(); ++K) {
    const Site &S = I.Plan.Sites[K];
    SmallVector<const Value *, 8> Roots;
    const BasicBlock *BB = nullptr;
    if (S.Kind == CHT_SITE_COMP) {
      for (const Access &A : S.Accesses) {
        BB = A.Inst->getParent();
        if (const auto *Ld = dyn_cast<LoadInst>(A.Inst)) {
          Roots.push_back(Ld->getPointerOperand());
        } else if (const auto *St = dyn_cast<StoreInst>(A.Inst)) {
          Roots.push_back(St->getPointerOperand());
          Roots.push_back(St->getValueOperand());
        } else {
          for (const Value *Op : A.Inst->operands())
            Roots.push_back(Op);
        }
      }
    } else if (S.Anchor) {
      BB = S.Anchor->getParent();
      for (const Value *Arg : cast<CallBase>(S.Anchor)->args())
        Roots.push_back(Arg);
    }
    std::vector<Dep> Value = I.setOfValues(Roots);
    std::vector<Dep> Control;
    if (BB)
      Control = I.setOf(I.node(NControl, BB));
    std::vector<Dep> Row = rowOf(Value, Control);
    uint32_t Own = I.FirstLocal + K;
    Row.erase(std::remove_if(Row.begin(), Row.end(),
                             [&](const Dep &D) {
                               return (D.Kind == CHT_DEP_VALUE ||
                                       D.Kind == CHT_DEP_CONTROL) &&
                                      D.Site == Own;
                             }),
              Row.end());
    Rows.push_back(std::move(Row));
  }

  // Symbol rows: what this function returns; what its calls pass and
  // under which conditions they are made.
  for (BasicBlock &BB : I.F) {
    for (Instruction &Inst : BB) {
      if (const auto *Ret = dyn_cast<ReturnInst>(&Inst)) {
        if (const Value *RV = Ret->getReturnValue()) {
          std::vector<Dep> Row = rowOf(I.setOfValues({RV}), {});
          mergeDeps(Syms[{I.F.getName().str(), CHT_DEP_ARG_RET}], Row);
        }
        continue;
      }
      const auto *CB = dyn_cast<CallBase>(&Inst);
      if (!CB || isMPICallee(*CB) || isa<IntrinsicInst>(CB) ||
          CB->isInlineAsm())
        continue;
      std::string Callee = calleeName(*CB).str();
      for (unsigned A = 0; A < CB->arg_size(); ++A) {
        std::vector<Dep> Row = rowOf(I.setOfValues({CB->getArgOperand(A)}), {});
        if (!Row.empty())
          mergeDeps(Syms[{Callee, static_cast<int>(A)}], Row);
      }
      std::vector<Dep> Entry = rowOf({}, I.setOf(I.node(NControl, &BB)));
      mergeDeps(Syms[{Callee, CHT_DEP_ARG_ENTRY}], Entry);
    }
  }
  return Rows;
}

} // namespace commhint
