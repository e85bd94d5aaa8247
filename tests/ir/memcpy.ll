; memcpy/memmove/memset (intrinsics and direct libcalls) are range events:
; __commhint_memcpy(site, dst, src, len) / __commhint_memset(site, dst, len)
; right before the call, with the dynamic length widened to i64, each its
; own MEMCPY/MEMSET site without an access list.  Copies between locals that
; never escape are not traced.
; RUN: COMMHINT_PRINT_SITES=1 %opt -passes=commhint-instrument -S %s -o %t.ll 2> %t.sites
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=SITES < %t.sites

@g = global [100 x i8] zeroinitializer
@h = global [100 x i8] zeroinitializer

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i32(ptr, ptr, i32, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare ptr @memcpy(ptr, ptr, i64)

; CHECK-LABEL: define void @copy(i64 %n, i32 %m)
; CHECK: [[BASE:%[^ ,)]+]] = load i32, ptr @__commhint_site_base
; CHECK: call void @__commhint_memcpy(i32 [[BASE]], ptr @g, ptr @h, i64 %n)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr @g, ptr @h, i64 %n, i1 false)
; CHECK-NEXT: [[ID1:%[0-9]+]] = add i32 [[BASE]], 1
; CHECK-NEXT: [[LEN:%[0-9]+]] = zext i32 %m to i64
; CHECK-NEXT: call void @__commhint_memcpy(i32 [[ID1]], ptr @h, ptr @g, i64 [[LEN]])
; CHECK-NEXT: call void @llvm.memmove.p0.p0.i32(ptr @h, ptr @g, i32 %m, i1 false)
; CHECK-NEXT: [[ID2:%[0-9]+]] = add i32 [[BASE]], 2
; CHECK-NEXT: call void @__commhint_memset(i32 [[ID2]], ptr @g, i64 %n)
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr @g, i8 0, i64 %n, i1 false)
; CHECK-NEXT: ret void
define void @copy(i64 %n, i32 %m) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr @g, ptr @h, i64 %n, i1 false)
  call void @llvm.memmove.p0.p0.i32(ptr @h, ptr @g, i32 %m, i1 false)
  call void @llvm.memset.p0.i64(ptr @g, i8 0, i64 %n, i1 false)
  ret void
}

; CHECK-LABEL: define void @libcall(ptr %d, ptr %s, i64 %n)
; CHECK: call void @__commhint_memcpy(i32 {{%[^ ,)]+}}, ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @memcpy(ptr %d, ptr %s, i64 %n)
define void @libcall(ptr %d, ptr %s, i64 %n) {
entry:
  %r = call ptr @memcpy(ptr %d, ptr %s, i64 %n)
  ret void
}

; CHECK-LABEL: define void @private_copy(i64 %n)
; CHECK-NOT: __commhint
; CHECK: ret void
define void @private_copy(i64 %n) {
entry:
  %a = alloca [100 x i8]
  %b = alloca [100 x i8]
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 %n, i1 false)
  call void @llvm.memset.p0.i64(ptr %a, i8 0, i64 %n, i1 false)
  ret void
}

; SITES: commhint: site 0 kind=memcpy {{.*}} func=copy op=none loop=none flags=none access=-
; SITES-NEXT: commhint: site 1 kind=memcpy {{.*}} func=copy op=none loop=none flags=none access=-
; SITES-NEXT: commhint: site 2 kind=memset {{.*}} func=copy op=none loop=none flags=none access=-
; SITES-NEXT: commhint: site 3 kind=memcpy {{.*}} func=libcall
; SITES-NOT: site 4
