/**
 * Notification mail: the signed-in person's settings (`/portal/api/me/notifications`) and the
 * unsubscribe link of a mail (`/portal/api/unsubscribe/preview`, `/portal/api/unsubscribe`: no sign-in).
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from './client';

export interface NotificationSetting {
  kind: string;
  label: string;
  description: string;
  enabled: boolean;
  /** Whether this person receives the kind in any of their accounts (by their role there). */
  receives: boolean;
  roles: string[];
}

export interface UnsubscribeView {
  kind: string;
  label: string;
  description: string;
  enabled?: false;
}

export interface NotificationSettings {
  /** The person's own IANA time zone (the weekly summary's), or null: each account's zone. */
  timezone: string | null;
  kinds: NotificationSetting[];
}

export const notificationsKey = ['notifications'] as const;

export const notificationSettingsQuery = () =>
  queryOptions({ queryKey: notificationsKey, queryFn: () => api<NotificationSettings>('/me/notifications'), staleTime: 0 });

export const saveNotificationSettings = (change: { kinds: Record<string, boolean>; timezone: string | null }) =>
  api<NotificationSettings>('/me/notifications', { method: 'PUT', body: change });

export const previewUnsubscribe = (token: string) => api<UnsubscribeView>('/unsubscribe/preview', { method: 'POST', body: { token }, auth: 'public' });

export const unsubscribe = (token: string) => api<UnsubscribeView>('/unsubscribe', { method: 'POST', body: { token }, auth: 'public' });
