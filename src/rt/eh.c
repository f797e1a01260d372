/* eh.c - the exception handling state of each thread and the throw that
 * transfers an exception to its handler (the design is in rt.h). */
#include "internal.h"

static __thread rt_eh rt_eh_state;

RT_ABI rt_eh *rt_eh_get(void)
{
	return &rt_eh_state;
}

RT_ABI noreturn void rt_eh_throw(rt_eh *eh)
{
	rt_ehframe *fr = eh->top;
	if (!fr)
		rt_trap_msg(RT_TRAP_EXCEPTION, eh->exn.func,
		            "uncaught wasm exception (tag %u)", eh->exn.tag);
	/* the landing code pops the frame: it also knows it by name */
	_longjmp(fr->jb, 1);
}

rt_ehframe *rt_eh_enter(void)
{
	rt_ehframe *saved = rt_eh_state.top;
	rt_eh_state.top = NULL;
	return saved;
}

void rt_eh_leave(rt_ehframe *saved)
{
	rt_eh_state.top = saved;
}
