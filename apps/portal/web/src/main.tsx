/** The portal's single-page app: react-query for every server call, react-router for the pages. */
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { configureApi, isApiError } from './api/client';
import { signInHref } from './lib/next';
import { createRouter } from './router';
import './styles/base.css';
import './styles/layout.css';
import './styles/components.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal or a missing thing stays so: only network trouble and 5xx are tried again (once).
      retry: (count, error) => count < 1 && (!isApiError(error) || error.status === 0 || error.status >= 500),
      refetchOnWindowFocus: false,
      staleTime: 15_000,
    },
    mutations: { retry: false },
  },
});

const router = createRouter();

let redirecting = false;
configureApi({
  unauthorized() {
    const { pathname, search } = window.location;
    if (redirecting || pathname === '/signin') return;
    redirecting = true;
    void router.navigate(signInHref(pathname + search), { replace: true }).finally(() => {
      redirecting = false;
      queryClient.clear();
    });
  },
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}
