// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include "container.h"
#include "lineage.h"

struct pcgroup *pcgroup__new(const char *v2, size_t v2_len, __u64 id, const char *v1, size_t v1_len)
{
	size_t n2 = v2 ? strnlen(v2, v2_len) : 0, n1 = v1 ? strnlen(v1, v1_len) : 0;
	struct pcgroup *cg = calloc(1, sizeof(*cg) + n2 + 1 + (v1 ? n1 + 1 : 0));
	char *v1_copy;

	if (!cg)
		return NULL;
	cg->refs = 1;
	cg->id = id;
	memcpy(cg->v2, v2 ? v2 : "", n2);
	if (v1) {
		v1_copy = cg->v2 + n2 + 1;
		memcpy(v1_copy, v1, n1);
		cg->v1 = v1_copy;
	}
	if (!cgroup__container(cg->v2, n2, cg->container, &cg->runtime) && cg->v1)
		cgroup__container(cg->v1, n1, cg->container, &cg->runtime);
	return cg;
}

struct pcgroup *pcgroup__get(struct pcgroup *cg)
{
	return REF_GET(cg);
}

void pcgroup__put(struct pcgroup *cg)
{
	if (REF_PUT(cg))
		free(cg);
}

struct image *image__new(const char *exe, const char *args, size_t len, bool cut)
{
	size_t elen = exe ? strlen(exe) + 1 : 0;
	struct image *im = malloc(sizeof(*im) + elen + (args ? len : 0));

	if (!im)
		return NULL;
	im->refs = 1;
	im->args_len = args ? len : 0;
	im->args_cut = cut;
	im->exe = exe ? memcpy(im->data, exe, elen) : NULL;
	im->args = args ? memcpy(im->data + elen, args, len) : NULL;
	return im;
}

struct image *image__get(struct image *im)
{
	return REF_GET(im);
}

void image__put(struct image *im)
{
	if (REF_PUT(im))
		free(im);
}

struct lineage *lineage__new(__u32 pid, __u64 start_ns, const char *comm, struct lineage *parent)
{
	struct lineage *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->pid = pid;
	l->start_ns = start_ns;
	memcpy(l->comm, comm, sizeof(l->comm));
	l->parent = lineage__get(parent);
	l->refs = 1;
	return l;
}

struct lineage *lineage__get(struct lineage *l)
{
	return REF_GET(l);
}

void lineage__put(struct lineage *l)
{
	struct lineage *parent;

	while (REF_PUT(l)) {
		parent = l->parent;
		image__put(l->image);
		free(l->remote);
		free(l);
		l = parent;
	}
}
