// new.cpp - the throwing operator new.  Debian's wasm libc++ is built
// without exceptions: its operator new calls abort() when memory runs out
// ("bad_alloc was thrown in -fno-exceptions mode").  These replace it (a
// program may replace them, as the standard allows; libc++'s are weak),
// so a failed `new` throws std::bad_alloc as natively.  The nothrow forms
// and the deletes stay libc++'s.
#include <cstdlib>
#include <new>

namespace {

void *allocate(std::size_t size, std::size_t align)
{
	if (size == 0)
		size = 1;
	for (;;) {
		void *p = align > alignof(std::max_align_t)
		        ? std::aligned_alloc(align, (size + align - 1) & ~(align - 1))
		        : std::malloc(size);
		if (p)
			return p;
		std::new_handler h = std::get_new_handler();
		if (!h)
			throw std::bad_alloc();
		h();
	}
}

} // namespace

void *operator new(std::size_t size) { return allocate(size, 0); }
void *operator new[](std::size_t size) { return allocate(size, 0); }
void *operator new(std::size_t size, std::align_val_t a)
{
	return allocate(size, static_cast<std::size_t>(a));
}
void *operator new[](std::size_t size, std::align_val_t a)
{
	return allocate(size, static_cast<std::size_t>(a));
}
