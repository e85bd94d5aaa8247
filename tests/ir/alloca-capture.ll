; Which accesses matter: a local whose address never escapes (a loop
; counter, a scratch array) is not traced; a local passed to MPI_Send or
; whose address is stored somewhere is; loads from constant globals are not.
; RUN: %opt -commhint-inline=false -passes=commhint-instrument -S %s -o %t.ll
; RUN: %FileCheck %s < %t.ll

@table = constant [2 x i32] [i32 1, i32 2]
@gp = global ptr null

declare i32 @MPI_Send(ptr, i32, i32, i32, i32, i32)

; CHECK-LABEL: define void @locals(
; CHECK: [[BASE:%[^ ,)]+]] = load i32, ptr @__commhint_site_base
; CHECK: store i32 0, ptr %i
; CHECK-NEXT: %p = getelementptr
; CHECK-NEXT: store double 1.000000e+00, ptr %p
; CHECK-NEXT: call void @__commhint_ev1(i32 [[BASE]], ptr %p)
; CHECK-NEXT: %q = getelementptr
; CHECK-NEXT: store double 2.000000e+00, ptr %q
; CHECK-NEXT: %v = load i32, ptr %i
; CHECK-NEXT: %t = load i32, ptr @table
; CHECK-NEXT: [[ID:%[0-9]+]] = add i32 [[BASE]], 1
; CHECK-NEXT: call void @__commhint_mpi_site(i32 [[ID]])
; CHECK-NEXT: %r = call i32 @MPI_Send(ptr %buf,
; CHECK-NOT: call void @__commhint_ev
; CHECK: ret void
define void @locals() {
entry:
  %i = alloca i32
  %buf = alloca [4 x double]
  %tmp = alloca [4 x double]
  store i32 0, ptr %i
  %p = getelementptr inbounds [4 x double], ptr %buf, i64 0, i64 1
  store double 1.0, ptr %p
  %q = getelementptr inbounds [4 x double], ptr %tmp, i64 0, i64 1
  store double 2.0, ptr %q
  %v = load i32, ptr %i
  %t = load i32, ptr @table
  %r = call i32 @MPI_Send(ptr %buf, i32 4, i32 0, i32 0, i32 0, i32 0)
  ret void
}

; The address of %esc is stored to a global: the store of the pointer (to
; @gp) and the store through %esc are both traced, in one event.
; CHECK-LABEL: define void @escapes(
; CHECK: [[BASE:%[^ ,)]+]] = load i32, ptr @__commhint_site_base
; CHECK: store ptr %esc, ptr @gp
; CHECK-NEXT: store i32 5, ptr %esc
; CHECK-NEXT: [[ID:%[0-9]+]] = add i32 [[BASE]], 2
; CHECK-NEXT: call void @__commhint_ev2(i32 [[ID]], ptr @gp, ptr %esc)
define void @escapes() {
entry:
  %esc = alloca i32
  store ptr %esc, ptr @gp
  store i32 5, ptr %esc
  ret void
}

; Nothing here is traced: no base load, no call.
; CHECK-LABEL: define i32 @private_only(
; CHECK-NOT: __commhint
; CHECK: ret i32
define i32 @private_only(i32 %n) {
entry:
  %s = alloca i32
  store i32 %n, ptr %s
  %v = load i32, ptr %s
  %c = load i32, ptr getelementptr ([2 x i32], ptr @table, i64 0, i64 1)
  %r = add i32 %v, %c
  ret i32 %r
}
