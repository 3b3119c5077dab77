package remote

// CheckRemote checks a remote's name and URL as Add does, without a
// store: for a remote named by a file from outside (a project's lock file)
// before anything is recorded or reached.
func CheckRemote(name, rawURL string) error {
	if err := checkRemoteName(name); err != nil {
		return err
	}
	_, err := normalizeRemoteURL(rawURL)
	return err
}
