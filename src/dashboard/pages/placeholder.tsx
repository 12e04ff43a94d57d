/** A section whose page has not been built yet (its route replaces this one when it lands). */
import { Layout, type Frame, type Section } from '../layout.js';

export function PlaceholderPage({ frame, section, title }: { frame: Frame; section: Section; title: string }): JSX.Element {
  return (
    <Layout frame={frame} title={title} section={section}>
      <h1 safe>{title}</h1>
      <p>This page is coming. Meanwhile the same data is available through the API: see the API reference.</p>
    </Layout>
  );
}
