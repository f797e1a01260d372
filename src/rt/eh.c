/* eh.c - the exception handling state of each thread (the design is in
 * rt.h; generated code does the jumps itself). */
#include "internal.h"

RT_ABI __thread rt_eh rt_eh_tls;

RT_ABI noreturn void rt_eh_uncaught(rt_eh *eh)
{
	rt_trap_msg(RT_TRAP_EXCEPTION, eh->exn.func,
	            "uncaught wasm exception (tag %u)", eh->exn.tag);
}

rt_ehframe *rt_eh_enter(void)
{
	rt_ehframe *saved = rt_eh_tls.top;
	rt_eh_tls.top = NULL;
	return saved;
}

void rt_eh_leave(rt_ehframe *saved)
{
	rt_eh_tls.top = saved;
}
