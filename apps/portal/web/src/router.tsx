/** The page map (docs/portal.md): react-router in data mode; settings pages load on first visit. */
import { createBrowserRouter, Navigate } from 'react-router';
import { AppLayout } from './layouts/app-layout';
import { AuthLayout } from './layouts/auth-layout';
import { FullPageLoading } from './layouts/common';
import { DashboardPage } from './pages/dashboard-page';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password-pages';
import { NotFoundPage } from './pages/not-found-page';
import { SignInPage } from './pages/signin-page';
import { SignUpPage } from './pages/signup-page';
import { VerifyEmailPage } from './pages/verify-email-page';
import { Root, RouteError } from './root';

export function createRouter() {
  return createBrowserRouter([
    {
      element: <Root />,
      errorElement: <RouteError />,
      hydrateFallbackElement: <FullPageLoading />,
      children: [
        { index: true, element: <Navigate to="/dashboard" replace /> },
        {
          element: <AuthLayout />,
          children: [
            { path: 'signin', element: <SignInPage /> },
            { path: 'signup', element: <SignUpPage /> },
            { path: 'verify-email', element: <VerifyEmailPage /> },
            { path: 'forgot-password', element: <ForgotPasswordPage /> },
            { path: 'reset-password', element: <ResetPasswordPage /> },
            { path: 'invitations/accept', lazy: async () => ({ Component: (await import('./pages/invitation-page')).InvitationPage }) },
            { path: 'claim', lazy: async () => ({ Component: (await import('./pages/claim-page')).ClaimPage }) },
            { path: 'unsubscribe', lazy: async () => ({ Component: (await import('./pages/unsubscribe-page')).UnsubscribePage }) },
            { path: 'unsubscribe/one-click', lazy: async () => ({ Component: (await import('./pages/unsubscribe-page')).UnsubscribePage }) },
            { path: 'oauth/interaction/:uid', lazy: async () => ({ Component: (await import('./pages/oauth-interaction-page')).OAuthInteractionPage }) },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
        {
          element: <AppLayout />,
          children: [
            { path: 'dashboard', element: <DashboardPage /> },
            { path: 'products', lazy: async () => ({ Component: (await import('./pages/products-page')).ProductsPage }) },
            { path: 'programs', lazy: async () => ({ Component: (await import('./pages/programs-page')).ProgramsPage }) },
            { path: 'links', lazy: async () => ({ Component: (await import('./pages/links-page')).LinksPage }) },
            { path: 'conversions', lazy: async () => ({ Component: (await import('./pages/conversions-page')).ConversionsPage }) },
            { path: 'conversions/:id', lazy: async () => ({ Component: (await import('./pages/conversion-page')).ConversionPage }) },
            { path: 'clicks', lazy: async () => ({ Component: (await import('./pages/clicks-page')).ClicksPage }) },
            { path: 'payments', lazy: async () => ({ Component: (await import('./pages/payments-page')).PaymentsPage }) },
            { path: 'inquiries', lazy: async () => ({ Component: (await import('./pages/inquiries-page')).InquiriesPage }) },
            { path: 'settings', element: <Navigate to="/settings/account" replace /> },
            { path: 'settings/postback', lazy: async () => ({ Component: (await import('./pages/settings/postback-page')).PostbackPage }) },
            { path: 'settings/keys', lazy: async () => ({ Component: (await import('./pages/settings/keys-page')).KeysPage }) },
            { path: 'settings/apps', lazy: async () => ({ Component: (await import('./pages/settings/apps-page')).AppsPage }) },
            { path: 'settings/team', lazy: async () => ({ Component: (await import('./pages/settings/team-page')).TeamPage }) },
            { path: 'settings/security', lazy: async () => ({ Component: (await import('./pages/settings/security-page')).SecurityPage }) },
            { path: 'settings/account', lazy: async () => ({ Component: (await import('./pages/settings/account-page')).AccountPage }) },
            { path: 'settings/payouts', lazy: async () => ({ Component: (await import('./pages/settings/payouts-page')).PayoutsSettingsPage }) },
            { path: 'settings/tax', lazy: async () => ({ Component: (await import('./pages/settings/tax-page')).TaxSettingsPage }) },
            {
              path: 'settings/notifications',
              lazy: async () => ({ Component: (await import('./pages/settings/notifications-page')).NotificationsPage }),
            },
            { path: 'operations', element: <Navigate to="/operations/review" replace /> },
            { path: 'operations/review', lazy: async () => ({ Component: (await import('./pages/operations-pages')).ReviewQueuePage }) },
            { path: 'operations/claims', lazy: async () => ({ Component: (await import('./pages/operations-pages')).ClaimsPage }) },
            { path: 'operations/keys', lazy: async () => ({ Component: (await import('./pages/operations-pages')).OperatorKeysPage }) },
            { path: 'operations/dead-letters', lazy: async () => ({ Component: (await import('./pages/operations-pages')).DeadLettersPage }) },
            { path: 'operations/audit', lazy: async () => ({ Component: (await import('./pages/operations-pages')).AuditPage }) },
            { path: 'operations/payouts', lazy: async () => ({ Component: (await import('./pages/operations-payouts-page')).OperationsPayoutsPage }) },
            {
              path: 'operations/inquiries',
              lazy: async () => ({ Component: (await import('./pages/operations-inquiries-page')).OperationsInquiriesPage }),
            },
            {
              path: 'operations/programs',
              lazy: async () => ({ Component: (await import('./pages/operations-programs-page')).MerchantsProgramsPage }),
            },
          ],
        },
      ],
    },
  ]);
}

export type AppRouter = ReturnType<typeof createRouter>;
