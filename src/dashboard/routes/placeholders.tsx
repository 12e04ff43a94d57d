/**
 * Sections in the navigation whose pages are still to come. Whoever builds one removes it from
 * `PLANNED` and registers the real route.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Kit } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { PlaceholderPage } from '../pages/placeholder.js';
import type { Section } from '../layout.js';

const PLANNED: { section: Section; path: string; title: string }[] = [
];

export function placeholderRoutes(kit: Kit): FastifyPluginAsync {
  return async (app) => {
    for (const p of PLANNED) {
      app.get<{ Params: { slug: string } }>(`/dashboard/w/:slug/${p.path}`, { schema: HIDDEN }, async (request, reply) => {
        const page = await kit.workspacePage(request, request.params.slug);
        return sendPage(reply, <PlaceholderPage frame={page.frame} section={p.section} title={p.title} />);
      });
    }
  };
}
