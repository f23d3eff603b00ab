import { useIntl } from 'react-intl';
import type { Problem } from './useSettingsForm';
import { getTranslation } from '../utils/getTranslation';

/** The text of a field's problem in the admin's language, or undefined where the field has none. */
export const useProblemText = () => {
  const { formatMessage } = useIntl();
  return (problem?: Problem) =>
    problem ? formatMessage({ ...problem, id: getTranslation(problem.id) }) : undefined;
};
