/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Sanitizer build only (-Dsanitize=address...): meson force-includes this
 * header in every C file so that our own rte_zmalloc/rte_malloc/rte_free
 * calls take the C heap, which AddressSanitizer watches. Debian's DPDK is
 * not built with ASan, so its heap is invisible to it: without this, an
 * overflow of a worker, a flow table, an egress queue or a pausable-ring
 * pool, a use after free or a leak of any of them would go unseen.
 *
 * Safe because rocetor never hands its rte_malloc memory to DPDK (rings and
 * mempools are created by DPDK itself, rte_ring_init on our memory is plain
 * memory either way), frees it only with rte_free, and shares none of it
 * with secondary processes (dpdk-dumpcap sees only mbufs and rings). DPDK's
 * own calls inside its libraries are unaffected: they are compiled already.
 * Macros only take effect after <rte_malloc.h> has been read, which this
 * header does first.
 */
#ifndef RTR_SAN_HEAP_H
#define RTR_SAN_HEAP_H

#if defined(__SANITIZE_ADDRESS__) && __has_include(<rte_malloc.h>)

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

static inline void *
rtr_san_malloc(size_t size, unsigned int align, int zero)
{
	void *p;

	/* rte_malloc: align 0 means "as malloc"; else a power of two. */
	if (align < sizeof(void *) * 2)
		align = sizeof(void *) * 2;
	if (size == 0)
		return NULL;
	/*
	 * Large zeroed blocks (flow tables: 128 MB by default) as calloc,
	 * which ASan serves from fresh mmap without touching it: the pages
	 * fault in on first use, as they do from DPDK's heap (22.11 does not
	 * clear memory it knows is fresh). A memset here would fault them all
	 * in at start-up and change the data path's timing: pkt-leafspine's
	 * SeqBalance lab then never rehashes (doc/testing.md). calloc's
	 * alignment is not promised, so check it.
	 */
	if (zero && size >= (1u << 16)) {
		p = calloc(1, size);
		if (p != NULL && ((uintptr_t)p & (align - 1)) == 0)
			return p;
		free(p);
	}
	if (posix_memalign(&p, align, size) != 0)
		return NULL;
	if (zero)
		memset(p, 0, size);
	return p;
}

static inline void *
rtr_san_calloc(size_t num, size_t size, unsigned int align)
{
	size_t total;

	if (__builtin_mul_overflow(num, size, &total))
		return NULL;
	return rtr_san_malloc(total, align, 1);
}

#define rte_malloc(type, size, align)  ((void)(type), rtr_san_malloc((size), (align), 0))
#define rte_zmalloc(type, size, align) ((void)(type), rtr_san_malloc((size), (align), 1))
#define rte_malloc_socket(type, size, align, socket) \
	((void)(type), (void)(socket), rtr_san_malloc((size), (align), 0))
#define rte_zmalloc_socket(type, size, align, socket) \
	((void)(type), (void)(socket), rtr_san_malloc((size), (align), 1))
#define rte_calloc(type, num, size, align) ((void)(type), rtr_san_calloc((num), (size), (align)))
#define rte_free(p)                        free(p)

#endif /* __SANITIZE_ADDRESS__ */

#endif /* RTR_SAN_HEAP_H */
